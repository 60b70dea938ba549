import{createRequire as __rcRequire}from'node:module';const require=__rcRequire(import.meta.url);
var e=new Set;function s(t,r=n=>process.stdout.write(n)){for(let n of t)n===""||e.has(n)||(e.add(n),r(`::add-mask::${o(n)}
`))}function o(t){return t.replaceAll("%","%25").replaceAll("\r","%0D").replaceAll(`
`,"%0A")}export{s as a};
