// Validates an OpenAPI document against the OpenAPI specification's own schema, with every
// $ref resolved (tests/openapi_test.py runs it on docs/openapi.json).
//
//   node tests/openapi/validate.mjs FILE
//
// Prints "valid OpenAPI <version>: FILE" and exits 0, or prints the errors and exits 1.
import { Validator } from "@seriousme/openapi-schema-validator";

const file = process.argv[2];
if (!file) {
  console.error("usage: node validate.mjs FILE");
  process.exit(2);
}
const validator = new Validator();
const result = await validator.validate(file);
if (!result.valid) {
  console.error(`${file} is not a valid OpenAPI document:`);
  console.error(JSON.stringify(result.errors, null, 2));
  process.exit(1);
}
try {
  validator.resolveRefs();
} catch (e) {
  console.error(`${file}: ${e.message}`);
  process.exit(1);
}
console.log(`valid OpenAPI ${validator.version}: ${file}`);
