"""A Web Push service for the end-to-end tests, on loopback: it plays the push service and the
browser behind it. It holds a browser's subscription keys (a P-256 key pair and a 16-byte auth
secret, written to KEYS as the Push API would hand them to a page), and for each POST to
/push/NAME checks the VAPID header (RFC 8292: an ES256 JWT for this origin, verified with the
key it names) and decrypts the body as a browser does (RFC 8291, aes128gcm), independently of
CLup's code, appending what it read to LOG as one JSON line. /push/gone answers 410 (the
browser unsubscribed); /push/slow (and any name starting so) never answers in time.

    python3 push_service.py PORT KEYS LOG
"""

import base64
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hkdf(salt, ikm, info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


PORT, KEYS, LOG = int(sys.argv[1]), sys.argv[2], sys.argv[3]
PRIVATE = ec.generate_private_key(ec.SECP256R1())
PUBLIC = PRIVATE.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
AUTH = bytes(range(16))


def decrypt(body):
    salt, record_size, key_length = body[:16], int.from_bytes(body[16:20], "big"), body[20]
    server_public = body[21:21 + key_length]
    ciphertext = body[21 + key_length:]
    assert record_size >= len(ciphertext), "one record"
    shared = PRIVATE.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), server_public))
    ikm = hkdf(AUTH, shared, b"WebPush: info\x00" + PUBLIC + server_public, 32)
    key = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
    padded = AESGCM(key).decrypt(nonce, ciphertext, None)
    assert padded.rstrip(b"\x00").endswith(b"\x02"), "last record delimiter"
    return padded.rstrip(b"\x00")[:-1].decode()


def vapid_problem(header, origin):
    """None if the Authorization header is a valid VAPID one for `origin`, else what is wrong."""
    if not header.startswith("vapid "):
        return "not vapid"
    fields = dict(part.strip().split("=", 1) for part in header[6:].split(","))
    head, claims, signature = fields["t"].split(".")
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(fields["k"]))
    raw = unb64url(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        key.verify(der, (head + "." + claims).encode(), ec.ECDSA(hashes.SHA256()))
    except Exception:
        return "bad signature"
    claims = json.loads(unb64url(claims))
    if json.loads(unb64url(head)).get("alg") != "ES256":
        return "not ES256"
    if claims.get("aud") != origin:
        return "audience " + str(claims.get("aud"))
    if not (time.time() < claims.get("exp", 0) <= time.time() + 24 * 3600):
        return "expiry"
    if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
        return "subject"
    return None


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        name = self.path.rsplit("/", 1)[-1]
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if name.startswith("slow"):
            time.sleep(60)
            return
        if name == "gone":
            self.send_response(410)
            self.end_headers()
            return
        entry = {"endpoint": name, "ttl": self.headers.get("TTL"), "urgency": self.headers.get("Urgency"),
                 "encoding": self.headers.get("Content-Encoding"),
                 "vapid": vapid_problem(self.headers.get("Authorization", ""), "http://127.0.0.1:%d" % PORT)}
        try:
            entry["payload"] = json.loads(decrypt(body))
        except Exception as error:  # recorded, so the test says what failed
            entry["error"] = repr(error)
        with open(LOG, "a") as log:
            log.write(json.dumps(entry) + "\n")
        self.send_response(201)
        self.send_header("Location", "/messages/1")
        self.end_headers()

    def log_message(self, *arguments):
        pass


server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
with open(KEYS + ".tmp", "w") as keys:
    json.dump({"p256dh": b64url(PUBLIC), "auth": b64url(AUTH)}, keys)
os.rename(KEYS + ".tmp", KEYS)
server.serve_forever()
