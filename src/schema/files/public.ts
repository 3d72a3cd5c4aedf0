// What other features and the composition root use of files: the default storage, the File type,
// receiving an upload inside a write, and the attachments check.
export { LocalDiskStorage } from "./local-disk.ts";
export { FileRef } from "./types.ts";
export { attachableFiles, filesUrl, fileUrl, withUploadedFile } from "./rules.ts";
