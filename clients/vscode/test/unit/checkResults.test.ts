import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCheckOutput } from "../../src/checkResults";

test("CLI JSON becomes 0-based problems grouped by absolute path", () => {
  const out = JSON.stringify([
    {
      path: "examples/k.py",
      line: 23,
      column: 5,
      end_line: 23,
      end_column: 17,
      code: "PAL003",
      record: "inline-mgpu-p-does-not-support-discharge",
      severity: "error",
      message: "`fence` is a `plgpu.inline_mgpu` function",
      related: [{ path: "examples/k.py", line: 28, message: "launched here" }],
    },
    { path: "/abs/other.py", line: 1, column: 1, code: "PAL900", severity: "warning", message: "does not parse" },
  ]);
  const byFile = parseCheckOutput(out, "/w");
  assert.deepEqual([...byFile.keys()], ["/w/examples/k.py", "/abs/other.py"]);
  const [p] = byFile.get("/w/examples/k.py")!;
  assert.deepEqual(p.range, { startLine: 22, startCharacter: 4, endLine: 22, endCharacter: 16 });
  assert.equal(p.code, "PAL003");
  assert.equal(p.severity, "error");
  assert.deepEqual(p.related, [{ path: "/w/examples/k.py", line: 27, message: "launched here" }]);
  const [q] = byFile.get("/abs/other.py")!;
  assert.deepEqual(q.range, { startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 0 });
  assert.equal(q.severity, "warning");
});

test("empty output is no problems; garbage is a readable error", () => {
  assert.equal(parseCheckOutput("", "/w").size, 0);
  assert.equal(parseCheckOutput("[]\n", "/w").size, 0);
  assert.throws(() => parseCheckOutput("Traceback (most recent call last):", "/w"), /did not print JSON/);
  assert.throws(() => parseCheckOutput("{}", "/w"), /not an array/);
});
