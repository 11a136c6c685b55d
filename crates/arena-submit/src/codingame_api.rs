//! Files arena adds to a bot's folder (under `.arena/`) so that bots written for CodinGame's hosts run
//! unchanged.

/// CodinGame's JavaScript host API on Node.js, loaded with `node --require` before the bot: a global
/// synchronous `readline()` (one line of standard input without its line end; at the end of the input
/// the bot exits, as CodinGame ends a bot when the game is over), and `print`/`printErr`, which write
/// a line to standard output/error at once.
pub const CG_HOST_JS: &str = r#"// Written by arena: CodinGame's JavaScript host API (readline, print, printErr) on Node.js.
'use strict';
const fs = require('fs');
const chunk = Buffer.alloc(1 << 16);
let pending = Buffer.alloc(0);
let ended = false;
const nap = new Int32Array(new SharedArrayBuffer(4));

// Standard input may be non-blocking: wait a millisecond and try again rather than fail.
function retrying(operation) {
  for (;;) {
    try {
      return operation();
    } catch (error) {
      if (error.code === 'EAGAIN') {
        Atomics.wait(nap, 0, 0, 1);
        continue;
      }
      if (error.code === 'EOF') {
        return 0;
      }
      throw error;
    }
  }
}

function readline() {
  for (;;) {
    const end = pending.indexOf(10);
    if (end >= 0) {
      let line = pending.subarray(0, end).toString('utf8');
      pending = pending.subarray(end + 1);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      return line;
    }
    if (ended) {
      if (pending.length > 0) {
        const line = pending.toString('utf8');
        pending = Buffer.alloc(0);
        return line;
      }
      process.exit(0);
    }
    const count = retrying(() => fs.readSync(0, chunk, 0, chunk.length, null));
    if (count === 0) {
      ended = true;
    } else {
      pending = Buffer.concat([pending, chunk.subarray(0, count)]);
    }
  }
}

function writeAll(fd, text) {
  let bytes = Buffer.from(text, 'utf8');
  while (bytes.length > 0) {
    const written = retrying(() => fs.writeSync(fd, bytes));
    bytes = bytes.subarray(written);
  }
}

globalThis.readline = readline;
globalThis.print = (...values) => writeAll(1, values.join(' ') + '\n');
globalThis.printErr = (...values) => writeAll(2, values.join(' ') + '\n');
"#;

/// The declarations of that API for TypeScript bots.
pub const CG_DECLARATIONS_TS: &str = r#"// Written by arena: CodinGame's host API, for the TypeScript compiler.
declare function readline(): string;
declare function print(...values: any[]): void;
declare function printErr(...values: any[]): void;
"#;
