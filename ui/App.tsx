import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Toaster } from "./components/Toaster";
import { TooltipProvider } from "./components/TooltipProvider";
import { queryClient as defaultClient } from "./lib/queryClient";
import { AppRoutes } from "./routes";

/** Providers shared by the app and by component tests. */
export function Providers({ children, client = defaultClient }: { children: ReactNode; client?: QueryClient }) {
  return (
    <QueryClientProvider client={client}>
      <TooltipProvider>
        {children}
        <Toaster />
      </TooltipProvider>
    </QueryClientProvider>
  );
}

export function App({ client }: { client?: QueryClient }) {
  return (
    <Providers client={client}>
      <AppRoutes />
    </Providers>
  );
}
