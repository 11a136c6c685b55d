"use strict";
// Coup: one position per call. A frame holds what was appended to the history file, what it meant
// (event), the coins and the hands (reveal symbols) after the call.

Arena.register(["coup"], (record, ui) => {
  const { el, names } = ui;
  const frames = record.frames;
  const COLORS = ["#d64545", "#2f6fdb"];
  const CARDS = {
    "~": ["Ambassador", "#3f8f6b"], "^": ["Assassin", "#2e2e38"], "*": ["Captain", "#2f6fdb"],
    "!": ["Contessa", "#c0392b"], "$": ["Duke", "#8e44ad"],
  };
  const BY_NAME = Object.fromEntries(Object.entries(CARDS).map(([sym, [name]]) => [name, sym]));
  const ACTIONS = {
    F: "Foreign Aid", C: "Coup", E: "Exchange (claims Ambassador)", T: "Tax (claims Duke)",
    A: "Assassinate (claims Assassin)", S: "Steal (claims Captain)",
  };
  const showHidden = ui.toggle("show hidden cards", false, "cards");

  // Turns: a history line ends with the newline its owner writes (or with the game).
  const turns = [];
  let current = null;
  frames.forEach((frame, i) => {
    if (!current) {
      current = { owner: frame.player, calls: [] };
      turns.push(current);
    }
    current.calls.push(i);
    if (frame.wrote.includes("\n") || frame.event.kind === "forfeit") current = null;
  });
  const turnOf = [];
  turns.forEach((turn, t) => turn.calls.forEach((i) => { turnOf[i] = t; }));

  function describe(frame) {
    const e = frame.event;
    switch (e.kind) {
      case "income": return "takes Income (+1)";
      case "action": return ACTIONS[e.action] || "action " + e.action;
      case "block": return "blocks with " + e.card;
      case "pass": return "passes";
      case "challenge": return "challenges!";
      case "reveal": return "reveals " + e.card + (e.replaced ? " (and draws a new card)" : "");
      case "surrender": return "loses " + e.card;
      case "end_turn": return e.kept ? "ends the turn, keeps " + e.kept.split("").map((s) => (CARDS[s] || [s])[0]).join(" + ") : "ends the turn";
      case "forfeit": return "forfeits: " + e.reason;
      default: return e.kind;
    }
  }

  function card(sym, state) {
    const [name, color] = CARDS[sym] || ["?", "#777"];
    if (state === "hidden") return el("div", { class: "card back", title: "hidden card" }, "?");
    return el("div", { class: "card " + state, style: "--card:" + color, title: name + (state === "lost" ? " (lost)" : "") },
      el("span", { class: "card-sym" }, sym), el("span", { class: "card-name" }, name));
  }

  const stage = document.getElementById("stage");
  const side = document.getElementById("side");

  function draw(i) {
    const frame = frames[i];
    const lost = [[], []];
    let forfeit = null;
    for (let k = 0; k <= i; k++) {
      const e = frames[k].event;
      if (e.kind === "surrender") lost[frames[k].player].push(BY_NAME[e.card] || "?");
      if (e.kind === "forfeit") forfeit = { player: frames[k].player, reason: e.reason };
    }
    const reveal = showHidden.on;
    const panels = names.map((name, p) => el("div", { class: "coup-player" + (frame.player === p ? " acting" : ""), style: "border-color:" + COLORS[p] },
      el("div", { class: "hud-name" }, el("i", { class: "dot", style: "background:" + COLORS[p] }), name),
      el("div", { class: "coins", title: "coins" }, el("span", { class: "coin" }, "◉"), " ", el("b", { "data-coins": p }, frame.coins[p])),
      el("div", { class: "hand" },
        frame.cards[p].split("").map((s) => card(s, reveal ? "shown" : "hidden")),
        lost[p].map((s) => card(s, "lost"))),
      forfeit && forfeit.player === p ? el("div", { class: "fault" }, "forfeit: " + forfeit.reason) : null,
      frame.cards[p] === "" ? el("div", { class: "fault" }, "no cards left: out") : null));

    const t = turnOf[i];
    const turn = turns[t];
    const current = el("div", { class: "coup-current" },
      el("span", { class: "call-no" }, "Call " + (frame.call + 1)),
      el("i", { class: "dot", style: "background:" + COLORS[frame.player] }),
      el("b", {}, names[frame.player]), " " + describe(frame),
      el("code", { class: "wrote" }, JSON.stringify(frame.wrote)));

    ui.put(stage,
      el("div", { class: "turn-head" },
        el("span", { class: "turn-no" }, "Turn " + (t + 1) + " / " + turns.length),
        el("span", { class: "day" }, names[turn.owner] + "'s turn")),
      current,
      forfeit ? el("div", { class: "banner fault-banner" }, names[forfeit.player] + " forfeits: " + forfeit.reason) : null,
      el("div", { class: "coup-table" }, panels));

    // Timeline up to now: a row per turn with its calls; later calls stay hidden.
    const rows = [];
    for (let u = 0; u <= t; u++) {
      const calls = turns[u].calls.filter((k) => k <= i);
      const line = calls.map((k) => frames[k].wrote).join("").replace(/\n/g, "⏎");
      rows.push(el("li", { class: "turn" + (u === t ? " now" : "") },
        el("div", { class: "turn-line" }, el("i", { class: "dot", style: "background:" + COLORS[turns[u].owner] }),
          el("b", {}, "Turn " + (u + 1)), " ", el("code", {}, line)),
        el("ul", { class: "calls" }, calls.map((k) => el("li", { class: "ev " + frames[k].event.kind + (k === i ? " now" : "") },
          names[frames[k].player] + " " + describe(frames[k]))))));
    }
    const list = el("ol", { class: "timeline" }, rows);
    ui.put(side, el("h3", {}, "Timeline"), list);
    // Keep the newest turn in sight without scrolling the page itself.
    list.scrollTop = list.scrollHeight;
  }

  // A process bot's call as it happened: its arguments after the history file, the text it appended
  // to the history (newlines shown as ⏎) and its stdout; not the record's JSON encoding of them.
  function io(step) {
    if (step.input === undefined && step.output === undefined) return null;
    let args = step.input;
    try { args = JSON.parse(step.input).join(" "); } catch (e) { /* shown as recorded */ }
    let wrote = null, stdout = null;
    try {
      const out = JSON.parse(step.output);
      wrote = out.wrote;
      stdout = out.stdout;
    } catch (e) {
      wrote = step.output;
    }
    const visible = (text) => String(text).replace(/\n/g, "⏎\n");
    const parts = [el("div", {}, "arguments ", el("code", { class: "io-args" }, args === undefined ? "" : visible(args)))];
    if (wrote !== null && wrote !== undefined) parts.push(el("div", {}, "appended to the history ", el("code", { class: "io-wrote" }, visible(wrote))));
    if (stdout) parts.push(el("div", {}, "stdout ", el("pre", { class: "io-stdout" }, stdout)));
    return parts;
  }

  return {
    io,
    count: frames.length,
    label: (i) => "Call " + (frames[i].call + 1),
    draw,
    steps: (i) => (record.steps[frames[i].call] ? [frames[i].call] : []),
    position: (k) => {
      const i = frames.findIndex((f) => f.call === k);
      return i < 0 ? null : i;
    },
  };
});
