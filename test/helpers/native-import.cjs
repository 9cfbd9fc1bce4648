// Node's own import(), for a module a test must load as Node loads it, not through vitest's module
// runner (which rewrites import() in the files it runs). Required through createRequire: the
// runner leaves a CommonJS file to Node.
module.exports = (url) => import(url);
