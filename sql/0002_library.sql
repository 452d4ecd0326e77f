-- The content library: templates (built-in and per-account), memories, and reference materials split
-- into passages that generation can cite.

-- account_id NULL marks a built-in template, seeded below and shown to every account.
-- sections: a JSON array of {key, heading (string|null), role, words, instruction}; the generation engine
-- writes each section from its role, word budget and instruction. The words add up to about target_words.
CREATE TABLE templates (
  id INTEGER PRIMARY KEY,
  account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  category TEXT NOT NULL,
  description TEXT NOT NULL,
  format TEXT NOT NULL CHECK (format IN ('article', 'post', 'thread', 'email', 'page', 'release', 'product')),
  sections TEXT NOT NULL CHECK (json_valid(sections) AND json_type(sections) = 'array'),
  target_words INTEGER NOT NULL CHECK (target_words > 0),
  tone TEXT NOT NULL CHECK (tone IN ('conversational', 'professional', 'persuasive', 'informative', 'enthusiastic')),
  created_at TEXT NOT NULL
);
CREATE INDEX templates_account ON templates(account_id, id);

-- Voice and context notes injected into generation.
CREATE TABLE memories (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('voice', 'context')),
  title TEXT NOT NULL,
  content TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX memories_workspace ON memories(workspace_id, id);

-- Source material, stored as plain text whatever format it arrived in.
CREATE TABLE reference_materials (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  content TEXT NOT NULL,
  source_type TEXT NOT NULL CHECK (source_type IN ('text', 'markdown', 'html', 'file')),
  word_count INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX reference_materials_workspace ON reference_materials(workspace_id, id);

-- A reference's plain text in order, as whole paragraphs or sentences of roughly 40 to 160 words.
CREATE TABLE reference_passages (
  id INTEGER PRIMARY KEY,
  reference_id INTEGER NOT NULL REFERENCES reference_materials(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  text TEXT NOT NULL,
  word_count INTEGER NOT NULL,
  UNIQUE (reference_id, position)
);

-- The built-in templates.
INSERT INTO templates (id, name, category, format, target_words, tone, created_at, description, sections) VALUES
-- 1. Blog post: headline, hook, context, point, evidence, point, example, point, summary, cta.
(1, 'Blog post', 'blog', 'article', 1000, 'conversational', '2026-01-01T00:00:00.000Z',
  'A long-form article that opens with a hook, frames the problem, develops three points with evidence and a worked example, and ends with takeaways and one next step.',
  json_array(
    json_object('key', 'headline', 'heading', NULL, 'role', 'headline', 'words', 12,
      'instruction', 'A specific, benefit-led title of 6 to 12 words that names the topic and what the reader gains; no clickbait.'),
    json_object('key', 'hook', 'heading', NULL, 'role', 'hook', 'words', 80,
      'instruction', 'Open with a concrete scene, a surprising fact or a pointed question that makes the reader feel the problem; no throat-clearing.'),
    json_object('key', 'context', 'heading', 'Why this matters', 'role', 'context', 'words', 120,
      'instruction', 'Frame the problem: who faces it, what it costs them, and what this article will show. End with a one-sentence promise.'),
    json_object('key', 'point_1', 'heading', NULL, 'role', 'point', 'words', 160,
      'instruction', 'Open with a short subheading stating the most important point, then explain it plainly with one supporting detail.'),
    json_object('key', 'evidence', 'heading', NULL, 'role', 'evidence', 'words', 120,
      'instruction', 'Back the first point with a number, a finding or a quotation from the reference materials, naming the source in the sentence.'),
    json_object('key', 'point_2', 'heading', NULL, 'role', 'point', 'words', 160,
      'instruction', 'A second point under its own short subheading, building on the first; explain the reasoning and what changes for the reader.'),
    json_object('key', 'example', 'heading', NULL, 'role', 'example', 'words', 130,
      'instruction', 'Walk through one realistic example that applies the points, with specifics: roles, numbers, before and after.'),
    json_object('key', 'point_3', 'heading', NULL, 'role', 'point', 'words', 120,
      'instruction', 'A third, practical point under its own short subheading: what to do first and the mistake to avoid.'),
    json_object('key', 'takeaways', 'heading', 'Key takeaways', 'role', 'summary', 'words', 70,
      'instruction', 'Three or four one-sentence takeaways, each phrased as an action.'),
    json_object('key', 'cta', 'heading', NULL, 'role', 'cta', 'words', 40,
      'instruction', 'One clear next step tied to the direction, in one or two sentences.')
  )),
-- 2. LinkedIn post: hook, context, point, evidence, cta.
(2, 'LinkedIn post', 'social', 'post', 220, 'professional', '2026-01-01T00:00:00.000Z',
  'A professional LinkedIn post: a first line that stops the scroll, a lesson drawn from experience, one credible detail, and a question that invites comments.',
  json_array(
    json_object('key', 'hook', 'heading', NULL, 'role', 'hook', 'words', 25,
      'instruction', 'One or two short lines that stop the scroll: a bold claim, a number or a moment of tension. No hashtags, no emoji at the start.'),
    json_object('key', 'context', 'heading', NULL, 'role', 'context', 'words', 50,
      'instruction', 'The situation behind the claim, in the first person: what happened and what was at stake.'),
    json_object('key', 'lesson', 'heading', NULL, 'role', 'point', 'words', 80,
      'instruction', 'The lesson as three short paragraphs or a list of three lines; one idea per line, blank lines between them.'),
    json_object('key', 'proof', 'heading', NULL, 'role', 'evidence', 'words', 35,
      'instruction', 'One concrete detail that makes the lesson credible: a result, a number, a before and after.'),
    json_object('key', 'cta', 'heading', NULL, 'role', 'cta', 'words', 25,
      'instruction', 'Close with an open question that invites readers to share their experience, then at most three relevant hashtags.')
  )),
-- 3. Newsletter: subject, hook, point, point, cta, signoff.
(3, 'Newsletter', 'email', 'email', 600, 'conversational', '2026-01-01T00:00:00.000Z',
  'One issue of an email newsletter: a subject line, a personal opener, one main story, a few quick items, a call to action and a sign-off.',
  json_array(
    json_object('key', 'subject', 'heading', NULL, 'role', 'subject', 'words', 9,
      'instruction', 'A subject line under 50 characters that promises one specific thing inside; no capitals for emphasis, no spam words.'),
    json_object('key', 'opener', 'heading', NULL, 'role', 'hook', 'words', 60,
      'instruction', 'A warm opening of two or three sentences that links this issue to something the reader cares about this week.'),
    json_object('key', 'main_story', 'heading', NULL, 'role', 'point', 'words', 300,
      'instruction', 'The main story under a short heading: one idea with a beginning, a turn and what it means for the reader.'),
    json_object('key', 'quick_hits', 'heading', 'Quick hits', 'role', 'point', 'words', 150,
      'instruction', 'Two or three short items (a tip, a resource, a number worth knowing) of two or three sentences each.'),
    json_object('key', 'cta', 'heading', NULL, 'role', 'cta', 'words', 50,
      'instruction', 'One action for the reader: reply, try the tip or read more, in one or two sentences.'),
    json_object('key', 'signoff', 'heading', NULL, 'role', 'signoff', 'words', 25,
      'instruction', 'A friendly sign-off in the sender''s voice, then a one-line P.S. that adds a small extra.')
  )),
-- 4. Product description: headline, hook, point, context, evidence, cta.
(4, 'Product description', 'ecommerce', 'product', 250, 'persuasive', '2026-01-01T00:00:00.000Z',
  'A product page description that leads with the outcome, turns features into benefits, gives the facts buyers check, reduces risk and ends with a reason to buy.',
  json_array(
    json_object('key', 'headline', 'heading', NULL, 'role', 'headline', 'words', 10,
      'instruction', 'The product name and its single strongest benefit, in 10 words at most.'),
    json_object('key', 'hook', 'heading', NULL, 'role', 'hook', 'words', 40,
      'instruction', 'Open with the outcome the buyer wants and how this product delivers it; address the buyer as you.'),
    json_object('key', 'benefits', 'heading', 'Why you will love it', 'role', 'point', 'words', 110,
      'instruction', 'Three to five bullets; each starts with a benefit, then the feature that delivers it, with a concrete specification where it helps.'),
    json_object('key', 'details', 'heading', 'Details', 'role', 'context', 'words', 30,
      'instruction', 'The facts a buyer checks before buying: size, compatibility, what is in the box, care.'),
    json_object('key', 'proof', 'heading', NULL, 'role', 'evidence', 'words', 40,
      'instruction', 'Proof that lowers the risk: materials, certifications, a review line, a guarantee or a number.'),
    json_object('key', 'cta', 'heading', NULL, 'role', 'cta', 'words', 25,
      'instruction', 'A closing line that restates the main benefit and invites the purchase.')
  )),
-- 5. Press release: headline, summary, context, point, quote, evidence, cta, signoff.
(5, 'Press release', 'press', 'release', 500, 'professional', '2026-01-01T00:00:00.000Z',
  'A news release in inverted-pyramid order: headline, subheadline, a dateline lead answering who, what, when, where and why, details, a spokesperson quote, and the boilerplate.',
  json_array(
    json_object('key', 'headline', 'heading', NULL, 'role', 'headline', 'words', 14,
      'instruction', 'A factual headline in the present tense that names the organisation and the news; no hype words.'),
    json_object('key', 'subheadline', 'heading', NULL, 'role', 'summary', 'words', 25,
      'instruction', 'One sentence under the headline with the most important supporting fact or number.'),
    json_object('key', 'lead', 'heading', NULL, 'role', 'context', 'words', 50,
      'instruction', 'The dateline (CITY, date) and a lead paragraph of 35 to 50 words answering who, what, when, where and why.'),
    json_object('key', 'details', 'heading', NULL, 'role', 'point', 'words', 170,
      'instruction', 'Details in descending order of importance: what is new, who benefits, availability, price or timing; paragraphs of two or three sentences.'),
    json_object('key', 'quote', 'heading', NULL, 'role', 'quote', 'words', 70,
      'instruction', 'A quotation from a named spokesperson (use [Name], [Title] placeholders when unknown) that adds perspective, not repeated facts.'),
    json_object('key', 'background', 'heading', NULL, 'role', 'evidence', 'words', 80,
      'instruction', 'Supporting facts: figures, customer or partner context, or background drawn from the reference materials.'),
    json_object('key', 'availability', 'heading', NULL, 'role', 'cta', 'words', 30,
      'instruction', 'Where to learn more or how to get it: a [URL] placeholder, a date or an event.'),
    json_object('key', 'boilerplate', 'heading', 'About the organisation', 'role', 'signoff', 'words', 60,
      'instruction', 'A neutral boilerplate paragraph (what the organisation does, for whom, since when, where), then a media contact line and ###.')
  )),
-- 6. Email: subject, hook, context, point, cta, signoff.
(6, 'Email', 'email', 'email', 200, 'professional', '2026-01-01T00:00:00.000Z',
  'A concise business email that states its purpose in the first sentence, gives just enough context and makes one clear request.',
  json_array(
    json_object('key', 'subject', 'heading', NULL, 'role', 'subject', 'words', 8,
      'instruction', 'A specific subject line of at most 8 words saying what the email is about and any action needed.'),
    json_object('key', 'opening', 'heading', NULL, 'role', 'hook', 'words', 30,
      'instruction', 'Greet the recipient by name and state the purpose of the email in the first sentence, referring to any shared context.'),
    json_object('key', 'context', 'heading', NULL, 'role', 'context', 'words', 60,
      'instruction', 'The background the recipient needs in order to act, in two or three sentences.'),
    json_object('key', 'details', 'heading', NULL, 'role', 'point', 'words', 60,
      'instruction', 'The specifics: options, dates, numbers or a short list, one line each.'),
    json_object('key', 'request', 'heading', NULL, 'role', 'cta', 'words', 25,
      'instruction', 'One explicit request with a deadline or next step, phrased so that it is easy to say yes.'),
    json_object('key', 'signoff', 'heading', NULL, 'role', 'signoff', 'words', 15,
      'instruction', 'A courteous closing line, then the sender''s name and role.')
  )),
-- 7. Social thread: hook, context, point, example, summary, cta.
(7, 'Social thread', 'social', 'thread', 300, 'enthusiastic', '2026-01-01T00:00:00.000Z',
  'A numbered thread for X, Threads, Bluesky or Mastodon: a hook post, one idea per post, an example, a one-line summary and a closing call to action.',
  json_array(
    json_object('key', 'hook', 'heading', NULL, 'role', 'hook', 'words', 35,
      'instruction', 'Post 1: a hook under 280 characters promising what the thread delivers, ending with a thread marker such as 1/.'),
    json_object('key', 'context', 'heading', NULL, 'role', 'context', 'words', 40,
      'instruction', 'Post 2: why this matters now, in one or two sentences.'),
    json_object('key', 'points', 'heading', NULL, 'role', 'point', 'words', 130,
      'instruction', 'Posts 3 to 6: one idea per post, each under 280 characters, numbered, and readable on its own.'),
    json_object('key', 'example', 'heading', NULL, 'role', 'example', 'words', 45,
      'instruction', 'One post with a concrete example, number or short story that makes the ideas real.'),
    json_object('key', 'summary', 'heading', NULL, 'role', 'summary', 'words', 25,
      'instruction', 'One post that sums up the thread in a single line.'),
    json_object('key', 'cta', 'heading', NULL, 'role', 'cta', 'words', 25,
      'instruction', 'Final post: ask readers to follow, reply or share, and point to one resource.')
  )),
-- 8. Landing page: headline, hook, context, point, steps, evidence, point, cta.
(8, 'Landing page', 'web', 'page', 700, 'persuasive', '2026-01-01T00:00:00.000Z',
  'A conversion-focused landing page: value proposition, the visitor''s problem, benefits, how it works, social proof, objections answered and a strong call to action.',
  json_array(
    json_object('key', 'headline', 'heading', NULL, 'role', 'headline', 'words', 10,
      'instruction', 'A value proposition in at most 10 words: what the visitor gets, not what the product is.'),
    json_object('key', 'subheadline', 'heading', NULL, 'role', 'hook', 'words', 30,
      'instruction', 'One or two sentences expanding the headline: who it is for and the main outcome.'),
    json_object('key', 'problem', 'heading', 'The problem', 'role', 'context', 'words', 90,
      'instruction', 'Describe the visitor''s pain in their own words and the cost of doing nothing.'),
    json_object('key', 'benefits', 'heading', 'What you get', 'role', 'point', 'words', 160,
      'instruction', 'Three benefit blocks, each a short bold title and two sentences on the outcome and how it is delivered.'),
    json_object('key', 'how_it_works', 'heading', 'How it works', 'role', 'steps', 'words', 100,
      'instruction', 'Three numbered steps from sign-up to result, each one sentence.'),
    json_object('key', 'social_proof', 'heading', 'What customers say', 'role', 'evidence', 'words', 110,
      'instruction', 'Two or three short testimonials or results with names or roles and numbers; only facts from the reference materials, else clear placeholders.'),
    json_object('key', 'faq', 'heading', 'Questions', 'role', 'point', 'words', 150,
      'instruction', 'Three or four common objections phrased as questions, each answered in two or three sentences.'),
    json_object('key', 'cta', 'heading', NULL, 'role', 'cta', 'words', 40,
      'instruction', 'A closing call to action: restate the main benefit, remove the risk (trial, guarantee) and name the button''s action.')
  )),
-- 9. Case study: headline, summary, context, point, evidence, quote, summary, cta.
(9, 'Case study', 'marketing', 'article', 900, 'professional', '2026-01-01T00:00:00.000Z',
  'A customer story in challenge, solution and results form, with before-and-after numbers, a customer quote and lessons other teams can reuse.',
  json_array(
    json_object('key', 'headline', 'heading', NULL, 'role', 'headline', 'words', 14,
      'instruction', 'A headline naming the customer (or the kind of customer) and the measurable result.'),
    json_object('key', 'at_a_glance', 'heading', 'At a glance', 'role', 'summary', 'words', 60,
      'instruction', 'Three short lines: who the customer is, what they needed, and the headline result.'),
    json_object('key', 'challenge', 'heading', 'The challenge', 'role', 'context', 'words', 170,
      'instruction', 'The situation before: goals, constraints, what they had tried and what it was costing them.'),
    json_object('key', 'solution', 'heading', 'The solution', 'role', 'point', 'words', 220,
      'instruction', 'What was chosen and why, how it was rolled out, by whom and over what time.'),
    json_object('key', 'results', 'heading', 'The results', 'role', 'evidence', 'words', 170,
      'instruction', 'Measurable outcomes with before-and-after figures and time frames; only figures from the reference materials, else clear placeholders.'),
    json_object('key', 'quote', 'heading', NULL, 'role', 'quote', 'words', 70,
      'instruction', 'A quotation from the customer, in their own voice, about the difference it made.'),
    json_object('key', 'lessons', 'heading', 'Lessons for your team', 'role', 'summary', 'words', 130,
      'instruction', 'Two or three lessons readers can transfer to their own situation, two or three sentences each.'),
    json_object('key', 'cta', 'heading', NULL, 'role', 'cta', 'words', 50,
      'instruction', 'Invite readers in a similar situation to take the next step.')
  )),
-- 10. How-to guide: headline, hook, context, steps, example, point, summary, cta.
(10, 'How-to guide', 'education', 'article', 1100, 'informative', '2026-01-01T00:00:00.000Z',
  'A step-by-step tutorial: the result the reader will reach, prerequisites, numbered steps with tips, a worked example, common mistakes and what to learn next.',
  json_array(
    json_object('key', 'headline', 'heading', NULL, 'role', 'headline', 'words', 12,
      'instruction', 'A title of the form How to [reach a result] that names the task and the outcome.'),
    json_object('key', 'intro', 'heading', NULL, 'role', 'hook', 'words', 70,
      'instruction', 'Open with the result the reader will have at the end and why the usual way is harder than it needs to be.'),
    json_object('key', 'prerequisites', 'heading', 'Before you start', 'role', 'context', 'words', 100,
      'instruction', 'What the reader needs (tools, access, time, knowledge) as a short list.'),
    json_object('key', 'steps', 'heading', 'Step by step', 'role', 'steps', 'words', 500,
      'instruction', 'Five to eight numbered steps; each starts with an imperative verb, says why it matters, and gives one tip or the expected result.'),
    json_object('key', 'example', 'heading', 'A worked example', 'role', 'example', 'words', 150,
      'instruction', 'Apply the steps to one realistic case with specific inputs and outputs.'),
    json_object('key', 'mistakes', 'heading', 'Common mistakes', 'role', 'point', 'words', 150,
      'instruction', 'Three mistakes readers make, each with how to spot it and how to fix it.'),
    json_object('key', 'recap', 'heading', 'Recap', 'role', 'summary', 'words', 70,
      'instruction', 'A short recap of the steps and the result.'),
    json_object('key', 'next', 'heading', NULL, 'role', 'cta', 'words', 40,
      'instruction', 'Suggest the next thing to learn or try.')
  ));
