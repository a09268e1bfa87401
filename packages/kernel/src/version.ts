/** The kernel's own version; plugins declare the range they work with. */
export const KERNEL_VERSION = '1.0.0';
/** The service (API) version reported by /health. */
export const SERVICE_VERSION = '1.8.0';
