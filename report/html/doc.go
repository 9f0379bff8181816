// Package html writes the HTML report: one self-contained page (inline
// CSS and SVG, a few lines of JavaScript that sort tables, nothing
// fetched) of report's tables and plot's figures for one or more runs.
package html
