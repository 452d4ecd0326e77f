/**
 * The records `init --demo` adds to the first account (src/cli/serve/init.ts), for someone trying the product: a small
 * solar installer's blog, with what each part of the API works on (a template of its own, reference materials,
 * memories, contents in each status), loaded as a fixture's records are (fixtures.ts). Held by
 * test/cli/init-demo.test.ts.
 */
import type { FixtureRecords } from "./fixtures.js";

/** The account's own template. */
export const DEMO_TEMPLATES: Record<string, unknown>[] = [
  {
    name: "Customer story",
    sections: [
      { role: "hook", words: 60 },
      { role: "point", words: 180 },
      { role: "cta", words: 40 },
    ],
  },
];

/** The default workspace's records. */
export const DEMO_WORKSPACE: FixtureRecords = {
  references: [
    {
      title: "Flat-roof mounting notes",
      format: "markdown",
      content:
        "# Mounting on flat roofs\n\nBallast mounts hold the panels with weight, without drilling the membrane. " +
        "A survey checks that the roof takes about 25 kg per square metre more. Panels tilt 10 to 15 degrees, " +
        "facing south, spaced so that one row does not shade the next in winter.",
    },
    {
      title: "Installation timeline",
      format: "text",
      content:
        "Survey in week one, permit in weeks two to four, installation in two days, grid connection within a " +
        "fortnight of the installation. The inverter goes inside, near the meter.",
    },
  ],
  memories: [
    { kind: "context", title: "Audience", content: "Owners of commercial buildings with flat roofs." },
    { kind: "voice", title: "Tone", content: "Plain, practical and friendly; short sentences, no jargon." },
  ],
  contents: [
    { title: "Notes for the warehouse case study", content: "Warehouse, 1,200 m2 of roof, 180 panels, two days." },
    { title: "Solar Panels on Flat Roofs", status: "generated" },
    {
      title: "Ballast or Drilling?",
      status: "finalized",
      content:
        "Ballast mounts hold panels in place with weight alone, so the roof membrane is never drilled. " +
        "Ask for a survey first: the roof must take the extra load.",
      scheduled_publish_at: "2030-01-15",
    },
    {
      title: "Two Days on the Roof",
      status: "published",
      content: "Our installers finish a typical flat-roof job in two days, from the first panel to the inverter.",
    },
  ],
};
