"""Submissions in: folders and archives unpacked safely, content digests, which folders are submissions
(a batch's staging is the batch's: `batch/staging.py`)."""
