export const add = (a, b) => a + b;
export const greet = (name) => `hello ${name}`;
