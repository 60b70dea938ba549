import{createRequire as __rcRequire}from'node:module';const require=__rcRequire(import.meta.url);
import{c as a}from"./chunk-MD4W6YPP.js";import"./chunk-U4CRFMPW.js";export default a();
