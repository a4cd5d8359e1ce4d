// The task module of csp.html: loaded in every worker by Pool.create({ module }).
export function add(a, b) {
  return a + b;
}

export async function sumView(view) {
  await null;
  let s = 0;
  for (const v of view) s += v;
  return s;
}
