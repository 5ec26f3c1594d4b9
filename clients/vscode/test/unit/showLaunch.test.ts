import assert from "node:assert/strict";
import { test } from "node:test";
import { parseShowLaunchArgs } from "../../src/showLaunch";

const uri = "file:///ws/kernels.py";
const loc = (line: number, other = uri) => ({
  uri: other,
  range: { start: { line, character: 4 }, end: { line, character: 18 } },
});

test("the server's lens arguments: the launch, where to peek from, the chain", () => {
  const args = [uri, { line: 15, character: 11 }, [loc(15), loc(18), loc(3, "file:///ws/test_k.py")]];
  assert.deepEqual(parseShowLaunchArgs(args), {
    uri,
    position: { line: 15, character: 11 },
    locations: [loc(15), loc(18), loc(3, "file:///ws/test_k.py")],
  });
});

test("malformed locations are left out; nothing left or no position: undefined", () => {
  const bad = [{ uri }, { uri, range: { start: { line: -1, character: 0 }, end: { line: 0, character: 0 } } }, null];
  assert.deepEqual(parseShowLaunchArgs([uri, { line: 1, character: 0 }, [...bad, loc(2)]])?.locations, [loc(2)]);
  assert.equal(parseShowLaunchArgs([uri, { line: 1, character: 0 }, bad]), undefined);
  assert.equal(parseShowLaunchArgs([uri, 15]), undefined); // the old form: (uri, line)
  assert.equal(parseShowLaunchArgs([uri, { line: 1.5, character: 0 }, [loc(1)]]), undefined);
  assert.equal(parseShowLaunchArgs(undefined), undefined);
});
