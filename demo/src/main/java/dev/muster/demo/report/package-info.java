/**
 * What a demo run shows: samples of the embedded cluster over simulated time ({@link dev.muster.demo.report.Sample}),
 * what the allocation stream said about gangs ({@link dev.muster.demo.report.StreamRecorder}), each gang's outcome
 * read from the cluster at the end ({@link dev.muster.demo.report.GangOutcome}), the controller-written Queue status
 * compared with the truth ({@link dev.muster.demo.report.Checkpoint}), gathered in a
 * {@link dev.muster.demo.report.RunResult} that also judges the invariants; rendered as a text table
 * ({@link dev.muster.demo.report.TextReport}) and a self-contained HTML page with inline SVG charts
 * ({@link dev.muster.demo.report.HtmlReport}).
 */
package dev.muster.demo.report;
