import{a,b,c}from"./chunks/chunk-RX5H6NKB.js";export{a as CATALOG_ID,b as catalog,c as mountSurfaces};
