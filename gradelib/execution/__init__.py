"""One notebook run: papermill with the kit's engine (`engine`), kernels forked from a warm server (`kernelfork`),
then the HTML report (`execute`). A batch's worker and the summary both run their notebooks here."""
