"use strict";
// Lang Wars family (langwars, langwars2, negotiate): one position per turn. Each frame is the state
// after its turn: values, sanitised moves, real and visible believer tables [target][player], action
// counts, out flags, and the scores after a scoring turn.

Arena.register(["langwars", "langwars2", "negotiate"], (record, ui) => {
  const { el, names, colors } = ui;
  const frames = record.frames;
  const edition = record.config; // "lw1" | "lw2" | "nc"
  const revealAfter = edition === "lw1" ? null : 5;
  const scoringTurns = edition === "nc" ? [5, 9] : [frames[frames.length - 1].turn];
  const players = names.length;
  const targets = frames[0].values.length;
  const holidayName = edition === "nc" ? "Night" : "Holiday";
  const weekdayName = edition === "nc" ? "Day" : "Weekday";
  const isHoliday = (frame) => frame.turn % 2 === 0;

  const showReal = ui.toggle("real believers (what nobody saw)", false, "real");

  // Which steps (asks) belong to which turn: every player still in is asked once per turn, in seat order.
  const stepsOfTurn = [];
  const turnOfStep = [];
  {
    let k = 0;
    frames.forEach((frame, i) => {
      const before = i === 0 ? frame.out.map(() => false) : frames[i - 1].out;
      const list = [];
      for (let p = 0; p < players; p++) {
        if (before[p]) continue;
        if (k < record.steps.length && record.steps[k].player === p) {
          list.push(k);
          turnOfStep[k] = i;
          k++;
        }
      }
      stepsOfTurn.push(list);
    });
  }

  // Score of one table in 24ths (§2.3: the top players share +value, the bottom players share −value).
  const SHARE = [0, 24, 12, 8, 6];
  function scoreTable(table, values) {
    const totals = new Array(players).fill(0);
    table.forEach((row, t) => {
      const max = Math.max(...row);
      const min = Math.min(...row);
      const tops = row.filter((r) => r === max).length;
      const bottoms = row.filter((r) => r === min).length;
      row.forEach((r, p) => {
        if (r === max) totals[p] += values[t] * SHARE[tops];
        if (r === min) totals[p] -= values[t] * SHARE[bottoms];
      });
    });
    return totals;
  }
  const gcd = (a, b) => (b === 0 ? Math.abs(a) : gcd(b, a % b));
  function fraction(n24) {
    const g = gcd(n24, 24) || 1;
    const n = n24 / g;
    const d = 24 / g;
    return d === 1 ? String(n) : n + "/" + d;
  }

  const stage = document.getElementById("stage");
  const side = document.getElementById("side");

  function draw(i) {
    const frame = frames[i];
    const real = showReal.on;
    // Holiday moves were secret: in the players' view they stay hidden.
    const hideMoves = !real && isHoliday(frame);
    const table = real ? frame.real : frame.visible;
    const revealed = revealAfter !== null && frame.turn >= revealAfter;
    const maxCell = Math.max(1, ...frames.flatMap((f) => (real ? f.real : f.visible).flat()));

    const banner = [];
    if (revealAfter !== null && frame.turn === revealAfter) {
      banner.push(el("div", { class: "banner reveal" }, "Reveal: after turn " + revealAfter +
        " every believer becomes visible, " + holidayName.toLowerCase() + "s included."));
    }
    if (scoringTurns.includes(frame.turn) && frame.scores) {
      banner.push(el("div", { class: "banner scoring" }, "Scoring after turn " + frame.turn + "."));
    }

    const moveCounts = frame.moves.map((moves) => {
      const c = new Array(targets).fill(0);
      for (const t of moves) if (t >= 0 && t < targets) c[t]++;
      return c;
    });

    const head = el("tr", {}, el("th", { class: "lang" }, "Language"), el("th", { class: "value" }, "Value"),
      names.map((name, p) => el("th", { class: "player" + (frame.out[p] ? " out" : "") },
        el("i", { class: "dot", style: "background:" + colors[p] }), name,
        frame.out[p] ? el("div", { class: "out-tag" }, "out: plays 0") : null)),
      el("th", { class: "count" }, hideMoves ? "actions" : "actions"));
    const rows = table.map((row, t) => {
      const max = Math.max(...row);
      const min = Math.min(...row);
      return el("tr", {},
        el("td", { class: "lang" }, el("span", { class: "lang-badge" }, "#" + t)),
        el("td", { class: "value" }, el("span", { class: "value-badge v" + frame.values[t] }, frame.values[t])),
        row.map((n, p) => {
          const gained = moveCounts[p][t];
          const cls = ["cell"];
          if (n === max) cls.push("top");
          if (n === min) cls.push("bottom");
          if (frame.out[p]) cls.push("out");
          return el("td", { class: cls.join(" ") },
            el("div", { class: "bar", style: "width:" + (100 * n / maxCell).toFixed(1) + "%;background:" + colors[p] }),
            el("span", { class: "n" }, n),
            gained && !hideMoves ? el("span", { class: "gain" + (isHoliday(frame) ? " secret" : "") }, "+" + gained * (isHoliday(frame) ? holidayGain() : 1)) : null);
        }),
        el("td", { class: "count" }, hideMoves ? "?" : frame.counts[t]));
    });

    const moves = el("div", { class: "moves" }, el("h3", {}, "Moves of turn " + frame.turn),
      names.map((name, p) => el("div", { class: "move" },
        el("i", { class: "dot", style: "background:" + colors[p] }), name + ": ",
        frame.out[p] ? el("span", { class: "fault" }, "out (target 0) ") : null,
        hideMoves ? el("span", { class: "secret-moves" }, frame.moves[p].map(() => "?").join(" ") + "  (secret)") :
          el("code", {}, frame.moves[p].join(" ")))));

    ui.put(stage,
      el("div", { class: "turn-head" },
        el("span", { class: "turn-no" }, "Turn " + frame.turn + " / " + frames.length),
        el("span", { class: "day " + (isHoliday(frame) ? "holiday" : "weekday") },
          (isHoliday(frame) ? holidayName : weekdayName) + " (" + frame.letter + ")"),
        el("span", { class: "mode" }, real ? "showing real believers" : revealed ? "players' view (revealed)" : "players' view (visible believers)")),
      banner,
      el("table", { class: "lw" }, el("thead", {}, head), el("tbody", {}, rows)),
      moves);
    ui.put(side, scores(i, table, frame));
  }

  function holidayGain() {
    return edition === "lw1" ? 1 : 2;
  }

  // Scores so far (from scoring frames), and what the shown table would score now.
  function scores(i, table, frame) {
    const done = frames.slice(0, i + 1).filter((f) => f.scores);
    const now = scoreTable(table, frame.values);
    // At the end the final scores are the result; an estimate beside them would only contradict it.
    const estimate = i < frames.length - 1;
    const columns = [];
    if (edition === "nc") {
      columns.push(["turn 5", (p) => scoreAt(5, p)]);
      columns.push(["turn 9", (p) => {
        const t5 = frames.find((f) => f.turn === 5 && f.scores);
        const t9 = frames.find((f) => f.turn === 9 && f.scores);
        return t5 && t9 && done.includes(t9) ? fraction(Math.round((ui.scoreValue(t9.scores[p]) - ui.scoreValue(t5.scores[p])) * 24)) : "–";
      }]);
    }
    columns.push(["total", (p) => {
      const last = done[done.length - 1];
      return last ? ui.scoreText(last.scores[p]) : "–";
    }]);
    function scoreAt(turn, p) {
      const f = done.find((x) => x.turn === turn);
      return f ? ui.scoreText(f.scores[p]) : "–";
    }
    return el("div", { class: "score-box" },
      el("h3", {}, "Scores"),
      el("table", { class: "scores" },
        el("thead", {}, el("tr", {}, el("th", {}, ""), columns.map(([h]) => el("th", {}, h)),
          estimate ? el("th", { title: "An estimate, not a score: what the table shown in this view would score if the game were scored now (the players' view hides the holiday actions)" }, "if scored now (estimate)") : null)),
        el("tbody", {}, names.map((name, p) => el("tr", { class: frame.out[p] ? "out" : "" },
          el("td", {}, el("i", { class: "dot", style: "background:" + colors[p] }), name),
          columns.map(([, f]) => el("td", { class: "num", "data-score-player": p }, f(p))),
          estimate ? el("td", { class: "num muted" }, fraction(now[p])) : null)))),
      el("p", { class: "muted small" }, "Per language the players with the most believers share +value, the fewest share −value." +
        (edition === "nc" ? " Negotiate and Conquer scores the real table after turns 5 and 9." : "")));
  }

  return {
    count: frames.length,
    label: (i) => "Turn " + frames[i].turn + " " + frames[i].letter,
    draw,
    steps: (i) => stepsOfTurn[i] || [],
    position: (k) => (turnOfStep[k] === undefined ? null : turnOfStep[k]),
  };
});
