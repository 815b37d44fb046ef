import { Monitor, Moon, Sun } from "lucide-react";
import { useId } from "react";
import { useTheme, type ThemeChoice } from "../lib/theme";

const CHOICES: { value: ThemeChoice; label: string }[] = [
  { value: "system", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

const ICONS = { system: Monitor, light: Sun, dark: Moon } as const;

/** The light/dark switch: the device's setting by default, or a kept choice. */
export function ThemeSwitch({ className = "" }: { className?: string }) {
  const [choice, setChoice] = useTheme();
  const id = useId();
  const Icon = ICONS[choice];
  return (
    <div className={`flex items-center gap-2 text-sm ${className}`}>
      <Icon className="h-4 w-4 shrink-0 opacity-70" aria-hidden />
      <label htmlFor={id} className="whitespace-nowrap">
        Theme
      </label>
      <select id={id} className="select select-sm select-bordered w-auto" value={choice} onChange={(e) => setChoice(e.target.value as ThemeChoice)}>
        {CHOICES.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </div>
  );
}
