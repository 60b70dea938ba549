import{createRequire as __rcRequire}from'node:module';const require=__rcRequire(import.meta.url);
import{c as a}from"./chunk-OHG5NJL5.js";import"./chunk-U4CRFMPW.js";export default a();
