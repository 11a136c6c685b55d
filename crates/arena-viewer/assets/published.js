"use strict";
// The viewer page of a published tournament folder (viewer.html beside report.html): opened as
// viewer.html?game=NNNNNN, it loads replays/NNNNNN.js, which calls arenaReplay(BASE64) with the
// gzip-compressed replay (the same bytes as replays/NNNNNN.json.gz). A script tag, not fetch():
// browsers refuse fetch() and XMLHttpRequest on file:// pages, but load scripts beside them, so the
// folder works opened from disk as well as from any static host.
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
  window.arenaReplay = async (base64) => {
    try {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      document.getElementById("replay").textContent = await new Response(inflated).text();
      Arena.start();
    } catch (error) {
      fail("Cannot read the replay of game " + Number(game) + ": " + error);
    }
  };
  const script = document.createElement("script");
  script.src = "replays/" + game + ".js";
  script.onerror = () => fail("replays/" + game + ".js is missing. Games between built-in bots keep no " +
    "replay unless the tournament ran with --replays all; `arena replay DIR " + Number(game) + "` rebuilds one.");
  document.body.append(script);
})();
