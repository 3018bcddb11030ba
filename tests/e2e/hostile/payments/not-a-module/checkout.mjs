// CommonJS in an .mjs file: `module` does not exist in an ES module.
module.exports = { chargeWithRetry: async (amount) => ({ ok: true, amount }) };
