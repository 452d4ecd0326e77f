import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";

export function VoicePage(_props: PageProps) {
  return (
    <Page title="Voice profile">
      <p>To be written.</p>
    </Page>
  );
}
