console.log("braid: not yet");
