/**
 * Slack and Microsoft Teams messages for an event, in the JSON their incoming webhooks take.
 *
 * Slack: `text` (the notification and fallback) plus Block Kit `blocks`.
 * Teams: an Adaptive Card (version 1.4) inside `attachments` of a `message` — the format of
 * the Workflows "Post to a channel when a webhook request is received" webhooks that replace
 * the retired Office 365 connectors, and accepted by connector webhooks still running too
 * (MessageCard is accepted by connectors only).
 */
import { describeAlert, type AlertDescription, type AlertSeverity, type DescribeContext } from "./describe";
import type { AlertEvent } from "./events";

/** Slack's limits: header text 150 characters, a section's text 3,000, at most 10 fields. */
const SLACK_HEADER_MAX = 150;
const SLACK_TEXT_MAX = 3000;
const SLACK_FIELDS_MAX = 10;

const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
/** Slack mrkdwn treats &, < and > as control characters. */
const slackEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const SLACK_MARK: Record<AlertSeverity, string> = { critical: ":rotating_light:", warning: ":warning:", info: ":information_source:", good: ":white_check_mark:" };

export interface SlackMessage {
  text: string;
  blocks: Record<string, unknown>[];
}

export function slackMessageFrom(description: AlertDescription, organizationName: string): SlackMessage {
  const blocks: Record<string, unknown>[] = [
    { type: "header", text: { type: "plain_text", text: cut(description.title, SLACK_HEADER_MAX), emoji: true } },
    { type: "section", text: { type: "mrkdwn", text: cut(`${SLACK_MARK[description.severity]} ${slackEscape(description.summary)}`, SLACK_TEXT_MAX) } },
  ];
  if (description.facts.length) {
    blocks.push({
      type: "section",
      fields: description.facts.slice(0, SLACK_FIELDS_MAX).map((f) => ({ type: "mrkdwn", text: cut(`*${slackEscape(f.label)}*\n${slackEscape(f.value)}`, 2000) })),
    });
  }
  blocks.push({ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: description.linkLabel }, url: description.link }] });
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: slackEscape(`dmarcwarden · ${organizationName}`) }] });
  return { text: slackEscape(`[${organizationName}] ${description.title}`), blocks };
}

export function slackMessage(event: AlertEvent, context: DescribeContext): SlackMessage {
  return slackMessageFrom(describeAlert(event, context), context.organization.name);
}

const TEAMS_COLOR: Record<AlertSeverity, string> = { critical: "Attention", warning: "Warning", info: "Default", good: "Good" };

export interface TeamsMessage {
  type: "message";
  attachments: { contentType: "application/vnd.microsoft.card.adaptive"; contentUrl: null; content: Record<string, unknown> }[];
}

export function teamsMessageFrom(description: AlertDescription, organizationName: string): TeamsMessage {
  const body: Record<string, unknown>[] = [
    { type: "TextBlock", text: `dmarcwarden · ${organizationName}`, isSubtle: true, size: "Small", wrap: true },
    { type: "TextBlock", text: description.title, weight: "Bolder", size: "Large", color: TEAMS_COLOR[description.severity], wrap: true },
    { type: "TextBlock", text: description.summary, wrap: true },
  ];
  if (description.facts.length) body.push({ type: "FactSet", facts: description.facts.map((f) => ({ title: f.label, value: f.value })) });
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          // the text of the notification in Teams' activity feed
          fallbackText: `[${organizationName}] ${description.title}`,
          body,
          actions: [{ type: "Action.OpenUrl", title: description.linkLabel, url: description.link }],
          msteams: { width: "Full" },
        },
      },
    ],
  };
}

export function teamsMessage(event: AlertEvent, context: DescribeContext): TeamsMessage {
  return teamsMessageFrom(describeAlert(event, context), context.organization.name);
}
