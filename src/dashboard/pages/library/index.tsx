/**
 * The library (#/library): what generation draws on in the current workspace — reference materials (facts to cite,
 * pasted or uploaded) and memories (voice and context notes). Everything a person wrote is shown as text.
 */
import "./library.css";
import { useAccount } from "../../account.js";
import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";
import { MemoriesSection } from "./memories.js";
import { ReferencesSection } from "./references.js";

/** The Library page (#/library): the current workspace's reference materials, then its memories. */
export function LibraryPage(_props: PageProps) {
  const workspaceId = useAccount().workspaceId ?? undefined;
  return (
    <Page title="Library">
      <ReferencesSection workspaceId={workspaceId} />
      <MemoriesSection workspaceId={workspaceId} />
    </Page>
  );
}
