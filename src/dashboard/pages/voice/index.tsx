/**
 * The voice profile (#/voice): what the current workspace's writers were seen to change when they finalized edited
 * drafts, which later generations follow, each trait with its evidence; and its correction by a person (remove a
 * trait, give a substitution another replacement, set the targets, or reset the whole profile).
 */
import "./voice.css";
import { useState } from "preact/hooks";
import { useAccount } from "../../account.js";
import { href, type PageProps } from "../../router.js";
import { Confirm } from "../../ui/dialog.js";
import { ErrorNote } from "../../ui/error-note.js";
import { dateTime } from "../../ui/format.js";
import { Busy, Page } from "../../ui/page.js";
import { useAction, useAsync } from "../../ui/use-async.js";
import {
  type Correction,
  correctProfile,
  isEmpty,
  type Profile,
  profileOf,
  resetProfile,
  type Substitution,
} from "./data.js";
import { RemovedList } from "./removed.js";
import { SubstitutionDialog } from "./substitution-dialog.js";
import { Targets } from "./targets.js";
import { ContestedList, PhraseTable, SubstitutionTable } from "./traits.js";

function EmptyProfile() {
  return (
    <div class="notice">
      <p>Nothing learned yet in this workspace.</p>
      <p>
        The profile fills as you finalize edited drafts: generate a piece, edit it as you would publish it, and finalize
        it from the <a href={href("/contents")}>Content</a> page. Each finalization is compared with what was generated,
        and the words you replace, the sentences you cut or add and the length you edit towards are learned here.
      </p>
    </div>
  );
}

function ProfileView({ profile, onCorrect }: { profile: Profile; onCorrect: (c: Correction) => Promise<unknown> }) {
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState<Substitution | null>(null);
  const correct = async (c: Correction) => {
    setBusy(true);
    await onCorrect(c);
    setBusy(false);
  };
  const t = profile.traits;
  return (
    <>
      <section class="panel" aria-labelledby="voice-words">
        <h2 id="voice-words">Words replaced</h2>
        <p class="hint">Words the writers replace inside a sentence: later generations write the replacement.</p>
        <SubstitutionTable
          items={t.substitutions}
          busy={busy}
          onEdit={setEditing}
          onRemove={(s) => correct({ remove: { substitutions: [{ from: s.from, to: s.to }] } })}
        />
        <ContestedList items={t.contested_substitutions} />
      </section>
      <section class="panel" aria-labelledby="voice-phrases">
        <h2 id="voice-phrases">Sentences cut and added</h2>
        <h3>Left out</h3>
        <PhraseTable
          caption="Phrases left out"
          empty="No sentence cut yet."
          items={t.avoided_phrases}
          busy={busy}
          onRemove={(p) => correct({ remove: { avoided_phrases: [p.phrase] } })}
        />
        <h3>Preferred</h3>
        <PhraseTable
          caption="Phrases preferred"
          empty="No sentence added yet."
          items={t.preferred_phrases}
          busy={busy}
          onRemove={(p) => correct({ remove: { preferred_phrases: [p.phrase] } })}
        />
      </section>
      <Targets key={profile.updated_at} traits={t} busy={busy} onSet={(set) => correct({ set })} />
      <RemovedList removed={profile.removed} />
      <SubstitutionDialog
        substitution={editing}
        onClose={() => setEditing(null)}
        onSave={(from, to) => {
          setEditing(null);
          correct({ edit: { substitutions: [{ from, to }] } });
        }}
      />
    </>
  );
}

/** The Voice page (#/voice): the current workspace's profile, its corrections and its reset. */
export function VoicePage(_props: PageProps) {
  const { workspaceId } = useAccount();
  const loaded = useAsync(() => profileOf(workspaceId), [workspaceId]);
  const [latest, setLatest] = useState<Profile | null>(null);
  const profile = latest?.workspace_id === workspaceId ? latest : (loaded.data ?? null);
  const correct = useAction(async (c: Correction) => setLatest(await correctProfile(profile!.id, c)));
  const reset = useAction(async () => setLatest(await resetProfile(profile!.id)));
  const [asking, setAsking] = useState(false);
  const actions =
    profile && !isEmpty(profile.traits) ? (
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        Reset the profile
      </button>
    ) : null;
  return (
    <Page title="Voice profile" actions={actions}>
      <ErrorNote error={loaded.error} />
      {loaded.loading && !loaded.data ? <Busy label="Reading the voice profile…" /> : null}
      {profile ? (
        <p class="muted">
          Learned from {profile.sample_count} finalization{profile.sample_count === 1 ? "" : "s"}; last changed{" "}
          {dateTime(profile.updated_at)}.
        </p>
      ) : null}
      <ErrorNote error={correct.error ?? reset.error} />
      {correct.busy ? <Busy label="Saving the correction…" /> : null}
      {!loaded.loading && (!profile || isEmpty(profile.traits)) ? <EmptyProfile /> : null}
      {profile && !isEmpty(profile.traits) ? <ProfileView profile={profile} onCorrect={correct.run} /> : null}
      {profile && isEmpty(profile.traits) ? <RemovedList removed={profile.removed} /> : null}
      <Confirm
        open={asking}
        title="Reset the voice profile?"
        confirmLabel="Reset"
        busy={reset.busy}
        onCancel={() => setAsking(false)}
        onConfirm={async () => {
          await reset.run();
          setAsking(false);
        }}
      >
        <p>
          Everything learned is forgotten: the words replaced, the sentences cut and added, the sentence length and
          reading ease, and the count of finalizations. Generation in this workspace writes as with no profile until the
          next finalization teaches it again. What a person removed stays recorded.
        </p>
      </Confirm>
    </Page>
  );
}
