// An update's `update_mask` (the SDK's comma-separated field names), shared by every PATCH: the fields
// it names, or, without one, the fields the body gives.

export function fieldsToUpdate(updateMask: string | undefined, given: readonly string[]): string[] {
  if (!updateMask) return [...given];
  return updateMask
    .split(",")
    .map((field) => field.trim())
    .filter(Boolean);
}
