"use strict";
// The viewer page of a published tournament folder (viewer.html beside report.html): opened as
// viewer.html?game=NNNNNN, it loads replays/bundle-MMMMMM.js (M: the game's hundred), which calls
// arenaReplays({NNNNNN: BASE64, ...}) with the gzip-compressed replays of the games report.html
// links (the same bytes as replays/NNNNNN.json.gz). A script tag, not fetch(): browsers refuse
// fetch() and XMLHttpRequest on file:// pages, but load scripts beside them, so the folder works
// opened from disk as well as from any static host. A game the bundles do not hold is fetched as
// replays/NNNNNN.json.gz, which works where the folder is served over HTTP.
(() => {
  const stage = document.getElementById("stage");
  const fail = (why) => {
    stage.replaceChildren(Arena.el("p", { class: "fault" }, why));
  };
  const game = new URLSearchParams(location.search).get("game") || "";
  if (!/^[0-9]{1,12}$/.test(game)) {
    fail("No game given: open the games from report.html (viewer.html?game=NUMBER).");
    return;
  }
  const show = async (blob) => {
    try {
      // A server may have unpacked the .json.gz already (Content-Encoding: gzip).
      const head = new Uint8Array(await blob.slice(0, 2).arrayBuffer());
      const packed = head[0] === 0x1f && head[1] === 0x8b;
      const text = packed
        ? await new Response(blob.stream().pipeThrough(new DecompressionStream("gzip"))).text()
        : await blob.text();
      document.getElementById("replay").textContent = text;
      Arena.start();
    } catch (error) {
      fail("Cannot read the replay of game " + Number(game) + ": " + error);
    }
  };
  const number = game.padStart(6, "0");
  const missing = () => fail("The replay of game " + Number(game) + " is not here. Opened from disk, " +
    "this page shows the games report.html links; `arena serve --dir DIR` shows every game. Games " +
    "between built-in bots keep no replay unless the tournament ran with --replays all; " +
    "`arena replay DIR " + Number(game) + "` rebuilds one.");
  const fetched = async () => {
    // Pages opened from disk may not fetch: say what is missing instead.
    if (location.protocol === "file:") return missing();
    try {
      const response = await fetch("replays/" + number + ".json.gz");
      if (!response.ok) throw new Error(String(response.status));
      await show(await response.blob());
    } catch (_) {
      missing();
    }
  };
  window.arenaReplays = (replays) => {
    const base64 = Object.prototype.hasOwnProperty.call(replays, number) ? replays[number] : null;
    if (base64 === null) return fetched();
    return show(new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))]));
  };
  const bundle = String(Math.floor(Number(game) / 100) * 100).padStart(6, "0");
  const script = document.createElement("script");
  script.src = "replays/bundle-" + bundle + ".js";
  script.onerror = fetched;
  document.body.append(script);
})();
