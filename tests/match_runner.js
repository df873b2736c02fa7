// Reads {"index": ..., "calls": [[op, ...args], ...]} on stdin, where op is
// "search" or "fill" (of a compiled template), and writes the list of answers as JSON.
"use strict";
const path = require("path");
const match = require(path.join(__dirname, "..", "templates", "static", "match.js"));

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const { index, calls } = JSON.parse(input);
  const answers = calls.map(([op, ...args]) => {
    if (op === "search") return match.search(index, args[0], args[1]);
    if (op === "fill") return match.fill(args[0], args[1]);
    throw new Error(`unknown op ${op}`);
  });
  process.stdout.write(JSON.stringify(answers));
});
