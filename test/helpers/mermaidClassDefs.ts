// The classDefs toMermaid always appends (the webview restyles by data-status; these are the fallback).
export const CLASS_DEFS: readonly string[] = [
  '  classDef pending fill:#f3f4f6,stroke:#9ca3af,color:#374151',
  '  classDef waiting fill:#fef3c7,stroke:#d97706,color:#111827',
  '  classDef running fill:#dbeafe,stroke:#2563eb,color:#111827,stroke-width:2px',
  '  classDef succeeded fill:#dcfce7,stroke:#16a34a,color:#111827',
  '  classDef failed fill:#fee2e2,stroke:#dc2626,color:#111827,stroke-width:2px',
  '  classDef conflict fill:#ffedd5,stroke:#ea580c,color:#111827,stroke-width:2px',
  '  classDef canceled fill:#e5e7eb,stroke:#6b7280,color:#374151',
  '  classDef skipped fill:#f9fafb,stroke:#d1d5db,color:#6b7280,stroke-dasharray:4',
  '  classDef interrupted fill:#f3e8ff,stroke:#9333ea,color:#111827',
];
