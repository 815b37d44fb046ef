import { useQuery } from "@tanstack/react-query";
import { Shield } from "lucide-react";
import { useEffect } from "react";

/** The branding in force (GET /api/branding, or the sign-in page's GET /api/branding/public). */
export interface BrandInForce {
  productName: string;
  primaryColor: string | null;
  logoUrl: string | null;
}

const DEFAULT_NAME = "dmarcwarden";

/** The signed-in organisation's branding (its own or its MSP's); undefined while loading or signed out. */
export function useBranding(enabled: boolean): BrandInForce | undefined {
  const q = useQuery<BrandInForce>({ queryKey: ["/api/branding"], enabled });
  return enabled ? q.data : undefined;
}

/**
 * The sign-in pages' brand: the MSP's link (`?brand=<slug>`), else the MSP whose own hostname
 * the page was opened on (the server tells by the Host), else the product's.
 */
export function usePublicBranding(slug: string | null): BrandInForce | undefined {
  const q = useQuery<BrandInForce>({ queryKey: [slug ? `/api/branding/public?brand=${encodeURIComponent(slug)}` : "/api/branding/public"], retry: false });
  return q.data;
}

/** Black or white text on the colour, whichever reads better. */
function contentOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b! > 0.179 ? "#000000" : "#ffffff";
}

/** Applies the brand's primary colour to the page while mounted (the theme's own colour otherwise). */
function useBrandColor(color: string | null | undefined) {
  useEffect(() => {
    if (!color || !/^#[0-9a-f]{6}$/i.test(color)) return;
    const root = document.documentElement.style;
    root.setProperty("--color-primary", color);
    root.setProperty("--color-primary-content", contentOn(color));
    return () => {
      root.removeProperty("--color-primary");
      root.removeProperty("--color-primary-content");
    };
  }, [color]);
}

/**
 * The product mark: the shield and "dmarcwarden" (SPEC), or an MSP's logo and product name
 * when white-label branding is in force for the organisation or the sign-in link.
 */
export function BrandMark({ brand, size = "sidebar" }: { brand: BrandInForce | undefined; size?: "sidebar" | "auth" }) {
  useBrandColor(brand?.primaryColor);
  const icon = size === "auth" ? "h-8 w-8" : "h-7 w-7";
  const text = size === "auth" ? "text-xl font-bold tracking-tight" : "text-lg font-bold tracking-tight";
  const name = brand?.productName || DEFAULT_NAME;
  return (
    <>
      {brand?.logoUrl ? (
        <img src={brand.logoUrl} alt="" className={`${icon} object-contain`} data-testid="brand-logo" />
      ) : (
        <Shield className={`${icon} text-primary`} aria-hidden />
      )}
      <span className={`${text} truncate`} data-testid="brand-name">
        {name}
      </span>
    </>
  );
}
