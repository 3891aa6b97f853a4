// CLup's service worker: shows the push messages the server sends (leave now, your turn,
// booking reminders) and opens the ticket when one is tapped. It caches nothing: every page
// is live, and an old copy of a ticket would mislead.
"use strict";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (error) { data = { body: event.data.text() }; }
  var title = data.title || "CLup";
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || "",
    icon: "/assets/icon-192.png",
    badge: "/assets/icon-192.png",
    tag: data.tag || "clup",
    renotify: data.renotify === true,
    vibrate: [200, 100, 200],
    data: { url: data.url || "/reservations" }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = new URL((event.notification.data && event.notification.data.url) || "/reservations", self.location.origin);
  if (url.origin !== self.location.origin) url = new URL("/reservations", self.location.origin);
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
    for (var i = 0; i < windows.length; i++) {
      if (new URL(windows[i].url).pathname === url.pathname && "focus" in windows[i]) return windows[i].focus();
    }
    return self.clients.openWindow(url.href);
  }));
});
