import{createRequire as __rcRequire}from'node:module';const require=__rcRequire(import.meta.url);
