"""Submissions in: folders and archives unpacked safely, content digests, staging a batch."""
