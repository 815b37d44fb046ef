/** The kinds of alert channel (the alert_channels.type column; shared with the UI, which must not load the schema). */
export const ALERT_CHANNEL_TYPES = ["email", "slack", "teams", "webhook"] as const;
export type AlertChannelType = (typeof ALERT_CHANNEL_TYPES)[number];
