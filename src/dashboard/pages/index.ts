/**
 * The dashboard's pages, by the fragment path that opens them (router.ts), in the order the navigation lists them.
 * `nav` names a page in the navigation; `admin` pages are listed and opened for the admin role only. Every page but
 * those marked `anyPlan` shows the upgrade prompt instead to an account whose plan has no API access (starter, pro):
 * its web session reaches only the plan, the device approval and /admin (the routes' planExempt).
 */
import type { FunctionComponent } from "preact";
import type { PageProps } from "../router.js";
import { DevicePage } from "./account/device.js";
import { PlanPage } from "./account/plan.js";
import { WorkspacesPage } from "./account/workspaces.js";
import { AdminPage } from "./admin/index.js";
import { CalendarPage } from "./calendar/index.js";
import { EditorPage } from "./content/editor.js";
import { ContentsPage } from "./content/list.js";
import { KeysPage, NewKeyPage } from "./keys/index.js";
import { LibraryPage } from "./library/index.js";
import { UsagePage } from "./usage/index.js";
import { VoicePage } from "./voice/index.js";

/** One page: its path pattern, its component, and who may see it. */
export interface PageDef {
  pattern: string;
  component: FunctionComponent<PageProps>;
  nav?: string;
  admin?: boolean;
  anyPlan?: boolean;
}

/** Every page of the dashboard. */
export const PAGES: PageDef[] = [
  { pattern: "/contents", component: ContentsPage, nav: "Content" },
  { pattern: "/contents/new", component: EditorPage },
  { pattern: "/contents/:id", component: EditorPage },
  { pattern: "/calendar", component: CalendarPage, nav: "Calendar" },
  { pattern: "/library", component: LibraryPage, nav: "Library" },
  { pattern: "/voice", component: VoicePage, nav: "Voice profile" },
  { pattern: "/usage", component: UsagePage, nav: "Usage" },
  { pattern: "/keys", component: KeysPage, nav: "API keys" },
  { pattern: "/keys/new", component: NewKeyPage },
  { pattern: "/workspaces", component: WorkspacesPage, nav: "Workspaces" },
  { pattern: "/plan", component: PlanPage, nav: "Plan", anyPlan: true },
  { pattern: "/device", component: DevicePage, anyPlan: true },
  { pattern: "/admin", component: AdminPage, nav: "Admin", admin: true, anyPlan: true },
];

/** The page shown at / and for an address that names no page. */
export const HOME = "/contents";
