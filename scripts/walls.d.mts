export const WALLED_FOLDERS: string[];
export function checkWalls(paths?: string[], options?: { config?: string; cwd?: string; stdio?: 'pipe' | 'inherit' }): { code: number; output: string };
