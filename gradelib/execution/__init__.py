"""One notebook run: papermill with the kit's engine (`engine`), kernels forked from a warm server (`kernelfork`),
the notebook left as its kernel ran it (`execute`). A batch's worker and the summary both run their notebooks here;
their reports are made once, by whoever writes them (`review/reportwriter.py`)."""
