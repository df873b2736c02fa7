// Reads {"index": ..., "calls": [[op, ...args], ...]} on stdin, where op is "search", "fill" (of a
// compiled template), "lower" (of a text) or "sharded" (a search of the fragments of a built site's
// index in the folder args[0], as the search page loads them: its results and the fragments read),
// and writes the list of answers as JSON.
"use strict";
const fs = require("fs");
const path = require("path");
const match = require(path.join(__dirname, "..", "templates", "static", "match.js"));

// A fragment is `ERRORSITE_SHARD(name, data);`: run it as the page would, with the call caught.
function reader(folder) {
  return (name) => new Promise((resolve) => {
    const code = fs.readFileSync(path.join(folder, name), "utf8");
    new Function("ERRORSITE_SHARD", code)((_, data) => resolve(data));
  });
}

async function answer([op, ...args], index) {
  if (op === "search") return match.search(index, args[0], args[1]);
  if (op === "fill") return match.fill(args[0], args[1]);
  if (op === "lower") return match.lower(args[0]);
  if (op === "sharded") {
    const loaded = await match.loadFor(reader(args[0]), args[1], args[2]);
    return { results: match.searchLoaded(loaded, args[1], args[2]), paths: loaded.paths };
  }
  throw new Error(`unknown op ${op}`);
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", async () => {
  const { index, calls } = JSON.parse(input);
  const answers = [];
  for (const call of calls) answers.push(await answer(call, index));
  process.stdout.write(JSON.stringify(answers));
});
