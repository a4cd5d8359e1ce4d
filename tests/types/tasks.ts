// A task module as a user writes one: its function exports are tasks by name.
export function add(a: number, b: number): number { return a + b; }
export async function upper(s: string): Promise<string> { return s.toUpperCase(); }
export function now(): number { return Date.now(); }
export function greet(name = 'you'): string { return `hi ${name}`; }
export const VERSION = 3;
