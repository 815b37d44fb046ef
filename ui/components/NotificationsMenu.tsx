import * as Dropdown from "@radix-ui/react-dropdown-menu";
import { AlertTriangle, Bell, CheckCircle2, Info, Trash2, XCircle } from "lucide-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useState } from "react";
import type { EventsPage, EventView } from "../../src/features/alerts/contract";
import { apiRequest } from "../lib/api";
import { formatNotificationTime } from "../lib/format";

/** SPEC §3 Notification (local only: read and deleted state lives in this browser). */
export interface AppNotification {
  id: string;
  type: "success" | "warning" | "error" | "info";
  title: string;
  message: string;
  timestamp: Date | string;
  read: boolean;
}

export const NOTIFICATIONS_STORAGE_KEY = "dmarcwarden.notifications";

interface StoredState {
  read: string[];
  deleted: string[];
}

function loadState(): StoredState {
  try {
    const raw = JSON.parse(localStorage.getItem(NOTIFICATIONS_STORAGE_KEY) ?? "null");
    if (raw && Array.isArray(raw.read) && Array.isArray(raw.deleted)) return { read: raw.read, deleted: raw.deleted };
  } catch {}
  return { read: [], deleted: [] };
}

function saveState(state: StoredState) {
  try {
    // keep the lists bounded: ids of notifications long gone need not be remembered forever
    localStorage.setItem(NOTIFICATIONS_STORAGE_KEY, JSON.stringify({ read: state.read.slice(-500), deleted: state.deleted.slice(-500) }));
  } catch {}
}

/** SPEC §4: unread → read on click or "Mark all read"; deletable. Remembered in localStorage. */
export function useLocalNotifications(source: AppNotification[]) {
  const [state, setState] = useState<StoredState>(loadState);
  useEffect(() => saveState(state), [state]);
  const notifications = useMemo(() => {
    const read = new Set(state.read);
    const deleted = new Set(state.deleted);
    return source.filter((n) => !deleted.has(n.id)).map((n) => ({ ...n, read: n.read || read.has(n.id) }));
  }, [source, state]);
  const markRead = useCallback((id: string) => setState((s) => (s.read.includes(id) ? s : { ...s, read: [...s.read, id] })), []);
  const markAllRead = useCallback(() => setState((s) => ({ ...s, read: [...new Set([...s.read, ...source.map((n) => n.id)])] })), [source]);
  const remove = useCallback((id: string) => setState((s) => ({ ...s, deleted: [...s.deleted, id] })), []);
  return { notifications, markRead, markAllRead, remove };
}

const SERVER_PREFIX = "event:";
const SEVERITY_TYPE: Record<EventView["severity"], AppNotification["type"]> = { critical: "error", warning: "warning", info: "info", good: "success" };

/** What the server noticed (GET /api/events): read state per user, kept by the server. */
export function serverNotification(event: EventView): AppNotification {
  return { id: `${SERVER_PREFIX}${event.id}`, type: SEVERITY_TYPE[event.severity] ?? "info", title: event.title, message: event.summary, timestamp: event.occurredAt, read: event.read };
}

/** The organization's events from the server, merged with what the page raised itself; read state sent back. */
function useServerEvents() {
  const client = useQueryClient();
  // signed out or failing: the bell shows the browser's own notifications only
  const { data } = useQuery<EventsPage | null>({ queryKey: ["/api/events"], retry: false });
  const events = useMemo(() => (data?.events ?? []).map(serverNotification), [data]);
  const send = useCallback(
    (path: string, body?: unknown) =>
      apiRequest("POST", path, body)
        .then(() => client.invalidateQueries({ queryKey: ["/api/events"] }))
        .catch(() => {}),
    [client],
  );
  const markRead = useCallback((id: string) => id.startsWith(SERVER_PREFIX) && send("/api/events/read", { ids: [id.slice(SERVER_PREFIX.length)] }), [send]);
  const markAllRead = useCallback(() => data?.unread && send("/api/events/read-all"), [send, data]);
  return { events, markRead, markAllRead };
}

const ICONS = { success: CheckCircle2, warning: AlertTriangle, error: XCircle, info: Info } as const;
const TONES = { success: "text-success", warning: "text-warning", error: "text-error", info: "text-info" } as const;

/** The header's bell: a count of unread notifications and the list, newest first. */
export function NotificationsMenu({ notifications: local, now }: { notifications: AppNotification[]; now?: Date }) {
  const server = useServerEvents();
  const source = useMemo(() => [...server.events, ...local], [server.events, local]);
  const localState = useLocalNotifications(source);
  const { notifications, remove } = localState;
  const markRead = (id: string) => {
    localState.markRead(id);
    server.markRead(id);
  };
  const markAllRead = () => {
    localState.markAllRead();
    server.markAllRead();
  };
  const unread = notifications.filter((n) => !n.read).length;
  // the badge's text is part of the button's name (what a voice-control user says to press it)
  const badge = unread > 99 ? "99+" : String(unread);
  const sorted = [...notifications].sort((a, b) => new Date(b.timestamp).getTime() - new Date(a.timestamp).getTime());
  return (
    <Dropdown.Root modal={false}>
      <Dropdown.Trigger className="btn btn-ghost btn-square relative border border-base-300 bg-base-100" aria-label={unread ? `Notifications: ${badge} unread` : "Notifications"}>
        <Bell className="h-5 w-5" aria-hidden />
        {unread > 0 && (
          <span className="badge badge-error badge-xs absolute -right-1 -top-1 h-5 min-w-5 px-1 text-[10px] font-bold" aria-hidden>
            {badge}
          </span>
        )}
      </Dropdown.Trigger>
      <Dropdown.Portal>
        <Dropdown.Content align="end" sideOffset={6} collisionPadding={8} className="z-50 w-[min(22rem,calc(100vw-1rem))] rounded-box border border-base-300 bg-base-100 shadow-xl">
          <div className="flex items-center justify-between gap-2 border-b border-base-300 px-3 py-2">
            <Dropdown.Label className="text-sm font-semibold">Notifications</Dropdown.Label>
            {unread > 0 && (
              <Dropdown.Item
                className="cursor-pointer rounded px-2 py-1 text-xs font-medium text-primary outline-none data-[highlighted]:bg-base-200"
                onSelect={(e) => {
                  e.preventDefault();
                  markAllRead();
                }}
              >
                Mark all read
              </Dropdown.Item>
            )}
          </div>
          {sorted.length === 0 ? (
            <div className="flex flex-col items-center gap-1 px-4 py-8 text-center">
              <Bell className="h-8 w-8 opacity-30" aria-hidden />
              <p className="text-sm font-medium">No notifications</p>
              <p className="text-xs opacity-60">You're all caught up.</p>
            </div>
          ) : (
            <div className="max-h-96 overflow-y-auto p-1" role="group" aria-label="Notification list">
              {sorted.map((n) => {
                const Icon = ICONS[n.type];
                return (
                  <div key={n.id} className={`group flex items-start gap-1 rounded ${n.read ? "" : "bg-primary/5"}`} data-read={n.read} data-notification={n.id}>
                    <Dropdown.Item
                      className="flex min-w-0 flex-1 cursor-pointer items-start gap-2 rounded px-2 py-2 outline-none data-[highlighted]:bg-base-200"
                      onSelect={(e) => {
                        e.preventDefault();
                        markRead(n.id);
                      }}
                    >
                      <Icon className={`mt-0.5 h-4 w-4 shrink-0 ${TONES[n.type]}`} aria-hidden />
                      <span className="min-w-0 flex-1">
                        <span className={`block text-sm ${n.read ? "font-normal" : "font-semibold"}`}>
                          {n.title}
                          {!n.read && <span className="sr-only"> (unread)</span>}
                        </span>
                        <span className="line-clamp-2 text-xs opacity-70">{n.message}</span>
                        <span className="block text-[11px] opacity-70">{formatNotificationTime(n.timestamp, now)}</span>
                      </span>
                      {!n.read && <span className="mt-1.5 h-2 w-2 shrink-0 rounded-full bg-primary" aria-hidden />}
                    </Dropdown.Item>
                    <Dropdown.Item
                      className="btn btn-ghost btn-xs btn-square mt-1.5 outline-none data-[highlighted]:bg-base-200"
                      aria-label={`Delete notification: ${n.title}`}
                      onSelect={(e) => {
                        e.preventDefault();
                        remove(n.id);
                      }}
                    >
                      <Trash2 className="h-3.5 w-3.5" aria-hidden />
                    </Dropdown.Item>
                  </div>
                );
              })}
            </div>
          )}
        </Dropdown.Content>
      </Dropdown.Portal>
    </Dropdown.Root>
  );
}
