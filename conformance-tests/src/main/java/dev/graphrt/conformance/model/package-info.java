/**
 * Kit group 29, the seams model: random sequences of public calls run against the backend and a plain-Java model of
 * every buffer, refusal and statistic; a disagreement is shrunk and printed as Java calls with its seed
 * (DESIGN.md section 12, docs/decisions.md "The seams model").
 */
package dev.graphrt.conformance.model;
