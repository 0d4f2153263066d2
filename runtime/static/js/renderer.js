import{a,b,c}from"./chunks/chunk-D2HIAHC2.js";export{a as CATALOG_ID,b as catalog,c as mountSurfaces};
