// Validate glTF files with the Khronos glTF Validator (npm package `gltf-validator`).
// Usage: node validate.mjs FILE...
// Prints one JSON object per file: {"file", "errors", "warnings", "infos", "issues": [...]}
// (issues: every error and warning with its code, message and JSON pointer). Exit status 0
// when no file has an error, 1 when one has, 2 when a file cannot be read.
import { readFile } from "node:fs/promises";
import validator from "gltf-validator";

let failed = false;
for (const file of process.argv.slice(2)) {
  let bytes;
  try {
    bytes = await readFile(file);
  } catch (e) {
    console.error(`cannot read ${file}: ${e.message}`);
    process.exit(2);
  }
  const report = await validator.validateBytes(new Uint8Array(bytes), { maxIssues: 0 });
  const issues = report.issues;
  console.log(
    JSON.stringify({
      file,
      errors: issues.numErrors,
      warnings: issues.numWarnings,
      infos: issues.numInfos,
      issues: issues.messages
        .filter((m) => m.severity <= 1)
        .map((m) => ({ code: m.code, severity: m.severity, message: m.message, pointer: m.pointer })),
    }),
  );
  if (issues.numErrors > 0) failed = true;
}
process.exit(failed ? 1 : 0);
