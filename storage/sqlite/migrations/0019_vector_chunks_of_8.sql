-- The vector table is rebuilt with chunks of 8 vectors instead of 64: ranking a
-- search's candidates reads each one's vector by walking its chunk's chain of
-- pages from the start, and in a fresh process every page walked is a page
-- fault (see createVectorTable). The rebuild runs in Go after this file; the
-- statement below only records the step.
SELECT 1;
