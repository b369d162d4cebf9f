-- The W3C traceparent of a run's root span (docs/adr/0083): the API shows its trace id, and a
-- planner that adopts or resumes the run goes on in the same trace. Null when tracing was off.
ALTER TABLE planner.runs ADD COLUMN trace_parent text;
