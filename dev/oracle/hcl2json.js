#!/usr/bin/env node
// HashiCorp's HCL parser (hclsyntax, compiled to WebAssembly by @cdktf/hcl2json) as an oracle for
// the language module's DifferentialParserTest.
//
// Usage: node hcl2json.js FILE...            (or: echo '["a.tf","b.tf"]' | node hcl2json.js)
// Prints one JSON line per file, in order:
//   {"file":"a.tf","ok":true,"json":{...hcl2json output...}}
//   {"file":"b.tf","ok":false,"error":"b.tf:3,1-2: Argument or block definition required; ..."}
// All files are parsed in this one process (the WebAssembly module loads once).
"use strict";
const fs = require("fs");
const path = require("path");

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

async function main() {
  let files = process.argv.slice(2);
  if (files.length === 0) {
    const input = (await readStdin()).trim();
    files = input === "" ? [] : JSON.parse(input);
  }
  const { parse } = require("@cdktf/hcl2json");
  const out = [];
  for (const file of files) {
    let line;
    try {
      const text = fs.readFileSync(file, "utf8");
      const json = await parse(path.basename(file), text);
      line = { file, ok: true, json };
    } catch (e) {
      line = { file, ok: false, error: String(e && e.message ? e.message : e) };
    }
    out.push(JSON.stringify(line));
  }
  process.stdout.write(out.length ? out.join("\n") + "\n" : "", () => process.exit(0));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(2);
});
