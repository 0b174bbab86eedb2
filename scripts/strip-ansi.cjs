'use strict';
// What the bundle gives cli-table3's string-width (4.x) for `strip-ansi` (build-bundle.js).
// strip-ansi 6 builds its regular expression anew on every call, and cli-table3 measures each
// cell some six times: for a table of 20,000 tokens that alone was about 40 % of the drawing.
// Node's own util.stripVTControlCharacters removes the same sequences (its pattern is
// ansi-regex 5's) with one expression kept for good.
const { stripVTControlCharacters } = require('node:util');

module.exports = (string) => (typeof string === 'string' ? stripVTControlCharacters(string) : string);
