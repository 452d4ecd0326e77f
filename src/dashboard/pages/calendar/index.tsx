import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";

export function CalendarPage(_props: PageProps) {
  return (
    <Page title="Calendar">
      <p>To be written.</p>
    </Page>
  );
}
