import { describe, expect, test } from "bun:test";
import { slackMessage, teamsMessage } from "./chat";
import { conditionKey } from "./conditions";
import { describeAlert } from "./describe";
import { ALERT_EVENT_TYPES, type AlertEvent } from "./events";

const context = { organization: { name: "Acme <Clinic> & Co" }, publicUrl: "https://dmarc.example.net/" };
const weakened: AlertEvent = {
  type: "dns.dmarc_weakened",
  domain: "example.com",
  data: { reasons: ["policy"], before: { policy: "reject", pct: 100, rua: ["d@example.com"] }, after: { policy: "none", pct: 100, rua: ["d@example.com"] } },
  dedupeKey: conditionKey("dns.dmarc_weakened", "example.com", "none"),
};

describe("what an alert says", () => {
  test("the title, the facts and a link to the page that shows the problem", () => {
    const d = describeAlert(weakened, context);
    expect(d.title).toBe("DMARC policy of example.com weakened");
    expect(d.facts).toEqual([{ label: "Policy", value: "reject → none" }]);
    expect(d.link).toBe("https://dmarc.example.net/app/domains?domain=example.com");
    expect(d.severity).toBe("critical");
  });

  test("every event type has words of its own", () => {
    for (const type of ALERT_EVENT_TYPES) {
      const d = describeAlert({ type, domain: "example.com", data: { record: "dmarc" }, dedupeKey: type }, context);
      expect(d.title.length).toBeGreaterThan(0);
      expect(d.link.startsWith("https://dmarc.example.net/app/")).toBe(true);
    }
  });

  test("a failing source links to the threats page and names the address", () => {
    const d = describeAlert({ type: "reports.new_failing_source", domain: "example.com", data: { sourceIp: "203.0.113.9", failedMessages: 40, messages: 41 }, dedupeKey: "k" }, context);
    expect(d.title).toContain("203.0.113.9");
    expect(d.link).toBe("https://dmarc.example.net/app/threats?domain=example.com");
  });
});

describe("Slack", () => {
  test("text for the notification, blocks with the title, facts, a button to the page and the organization", () => {
    const message = slackMessage(weakened, context);
    expect(message.text).toBe("[Acme &lt;Clinic&gt; &amp; Co] DMARC policy of example.com weakened");
    expect(message.blocks[0]).toEqual({ type: "header", text: { type: "plain_text", text: "DMARC policy of example.com weakened", emoji: true } });
    const actions = message.blocks.find((b) => b.type === "actions") as { elements: { url: string }[] };
    expect(actions.elements[0]!.url).toBe("https://dmarc.example.net/app/domains?domain=example.com");
    const fields = message.blocks.find((b) => "fields" in b) as { fields: { text: string }[] };
    expect(fields.fields[0]!.text).toBe("*Policy*\nreject → none");
    expect(JSON.stringify(message.blocks.at(-1))).toContain("Acme &lt;Clinic&gt; &amp; Co");
  });

  test("a long title is cut to Slack's 150-character header limit", () => {
    const message = slackMessage({ ...weakened, domain: `${"a".repeat(200)}.example.com` }, context);
    const header = message.blocks[0] as { text: { text: string } };
    expect(header.text.text.length).toBeLessThanOrEqual(150);
  });
});

describe("Microsoft Teams", () => {
  test("an Adaptive Card in a message attachment, with facts and an Open action", () => {
    const message = teamsMessage(weakened, context);
    expect(message.type).toBe("message");
    const [attachment] = message.attachments;
    expect(attachment!.contentType).toBe("application/vnd.microsoft.card.adaptive");
    const card = attachment!.content as { type: string; version: string; body: { type: string; text?: string; facts?: unknown[] }[]; actions: { type: string; url: string }[] };
    expect(card.type).toBe("AdaptiveCard");
    expect(card.version).toBe("1.4");
    expect(card.body.map((b) => b.text).filter(Boolean)).toContain("DMARC policy of example.com weakened");
    expect(card.body.find((b) => b.type === "TextBlock")!.text).toBe("dmarcwarden · Acme <Clinic> & Co");
    expect(card.body.find((b) => b.type === "FactSet")!.facts).toEqual([{ title: "Policy", value: "reject → none" }]);
    expect(card.actions as unknown[]).toEqual([{ type: "Action.OpenUrl", title: "Open the domain", url: "https://dmarc.example.net/app/domains?domain=example.com" }]);
  });
});
