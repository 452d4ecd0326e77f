/**
 * How the description names schemas (src/http/openapi-schemas.ts): a named schema is one component referred to by
 * `$ref`; one used in requests and responses whose two forms differ has a second component, `<Name>Input`, for the
 * request side, and so has a schema that refers to it.
 */
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { convertSchemas, offeredModels } from "../../src/http/openapi-schemas.js";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A number sent as a string: the request's form is a string, the response's a number. */
const Count = v.pipe(v.string(), v.transform(Number), v.number());
const Same = v.object({ title: v.string() });
const Differs = v.object({ count: Count });
const Outer = v.object({ inner: Differs, note: v.string() });
const RequestOnly = v.object({ count: Count });
const names = { Same, Differs, Outer, RequestOnly };

describe("named schemas in the description", () => {
  const page = v.object({ data: v.array(Same) });
  const converted = convertSchemas([Same, Outer, RequestOnly], [page, Outer], names, offeredModels({}));

  it("refers to a named schema by $ref wherever it appears, nested ones too", () => {
    expect(converted.of(Same, "input")).toEqual(ref("Same"));
    expect(converted.of(page, "output")).toMatchObject({ properties: { data: { items: ref("Same") } } });
    expect(converted.components.Same).toMatchObject({ properties: { title: { type: "string" } } });
  });

  it("names a request's form <Name>Input where it differs from the response's, and a schema that holds it", () => {
    expect(converted.of(Outer, "output")).toEqual(ref("Outer"));
    expect(converted.of(Outer, "input")).toEqual(ref("OuterInput"));
    expect(converted.components.Differs).toMatchObject({ properties: { count: { type: "number" } } });
    expect(converted.components.DiffersInput).toMatchObject({ properties: { count: { type: "string" } } });
    expect(converted.components.OuterInput).toMatchObject({ properties: { inner: ref("DiffersInput") } });
    expect(converted.components.Outer).toMatchObject({ properties: { inner: ref("Differs") } });
  });

  it("keeps the name of a schema used in requests only, and lists only the components used", () => {
    expect(converted.of(RequestOnly, "input")).toEqual(ref("RequestOnly"));
    expect(converted.components.RequestOnly).toMatchObject({ properties: { count: { type: "string" } } });
    expect(Object.keys(converted.components).sort()).toEqual(
      ["Differs", "DiffersInput", "Outer", "OuterInput", "RequestOnly", "Same"].sort(),
    );
    expect(converted.bodyForm(RequestOnly)).toMatchObject({ type: "object", properties: { count: {} } });
  });
});
