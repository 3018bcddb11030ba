"""What the kit's loopback servers share: HTTP plumbing on a socket handed over by the sandbox."""
