// CLup progressive enhancement. Every page works without this file; with it the home page
// gains "use my location" and a map of the stores (Leaflet, when the page provides it), and a
// ticket keeps its figures up to date without reloading.
"use strict";

(function () {
  function navigateTo(lat, lon) {
    var params = new URLSearchParams();
    params.set("lat", lat.toFixed(5));
    params.set("lon", lon.toFixed(5));
    var mode = document.getElementById("mode");
    if (mode) params.set("mode", mode.value);
    window.location.assign("/?" + params.toString());
  }

  function setUpLocate() {
    var button = document.querySelector("[data-locate]");
    var status = document.querySelector("[data-locate-status]");
    if (!button || !("geolocation" in navigator)) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      status.hidden = false;
      status.textContent = "Finding your position…";
      navigator.geolocation.getCurrentPosition(
        function (position) { navigateTo(position.coords.latitude, position.coords.longitude); },
        function (error) {
          status.textContent = error.code === 1
            ? "Location is turned off for this site. Choose a place from the list instead."
            : "Your position could not be found. Choose a place from the list instead.";
        },
        { enableHighAccuracy: false, timeout: 10000, maximumAge: 300000 }
      );
    });
  }

  function setUpMap() {
    var element = document.getElementById("map");
    if (!element || typeof L === "undefined") return;
    element.hidden = false;
    var hint = document.querySelector("[data-map-hint]");
    if (hint) hint.hidden = false;
    var here = [parseFloat(element.dataset.lat), parseFloat(element.dataset.lon)];
    var map = L.map(element, { scrollWheelZoom: false }).setView(here, 13);
    L.tileLayer(element.dataset.tiles, { maxZoom: 19, attribution: element.dataset.attribution }).addTo(map);
    L.marker(here, { icon: L.divIcon({ className: "map-you", iconSize: [14, 14] }), title: "You" }).addTo(map);
    document.querySelectorAll("[data-store]").forEach(function (item) {
      var marker = L.marker([parseFloat(item.dataset.lat), parseFloat(item.dataset.lon)], {
        icon: L.divIcon({ className: "map-marker light-" + item.dataset.light, iconSize: [18, 18] }),
        title: item.dataset.name
      }).addTo(map);
      var popup = document.createElement("div");
      var link = document.createElement("a");
      link.href = item.dataset.href;
      link.textContent = item.dataset.name;
      var wait = document.createElement("div");
      wait.textContent = "Wait: " + item.dataset.wait;
      popup.appendChild(link);
      popup.appendChild(wait);
      marker.bindPopup(popup);
    });
    map.on("click", function (event) { navigateTo(event.latlng.lat, event.latlng.lng); });
  }

  // A live ticket asks for its status every 20 s while the page is visible; without this
  // script the page reloads itself (a meta refresh inside <noscript>).
  function setUpLiveTicket() {
    var ticket = document.querySelector("[data-status-url]");
    if (!ticket || !ticket.dataset.statusUrl || !window.fetch) return;
    var url = ticket.dataset.statusUrl;
    var status = ticket.dataset.status;
    function refresh() {
      if (document.hidden) return;
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          if (!data) return;
          if (status && data.status !== status) { window.location.reload(); return; }
          status = data.status;
          ticket.querySelectorAll("[data-field]").forEach(function (element) {
            var value = data[element.dataset.field];
            if (typeof value === "string") element.textContent = value;
          });
        })
        .catch(function () {});
    }
    window.setInterval(refresh, 20000);
    document.addEventListener("visibilitychange", refresh);
  }

  function setUpPrintAndConfirm() {
    document.querySelectorAll("[data-print]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () { window.print(); });
    });
    document.querySelectorAll("[data-confirm]").forEach(function (button) {
      button.addEventListener("click", function (event) {
        if (!window.confirm(button.dataset.confirm)) event.preventDefault();
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpLocate();
    setUpMap();
    setUpLiveTicket();
    setUpPrintAndConfirm();
  });
})();
