package geminiwire

// Turn is one model turn of a conversation and what came after it: the
// function responses (in the order the CLI sent them) and the user's
// texts, up to the next model turn.
type Turn struct {
	Answer
	Results []FunctionResponse
	Notes   []string // user texts after it: a note of the CLI's, such as a subagent's last-chance warning
}

// Turns reads the request's conversation as the model's turns, oldest
// first. Thoughts are left out; a model turn's texts are joined by
// newlines.
func (r Request) Turns() []Turn {
	var turns []Turn
	for _, c := range r.Contents {
		if c.Role == "model" {
			t := Turn{Answer: Answer{Text: texts(c.Parts)}}
			for _, p := range c.Parts {
				if p.FunctionCall != nil {
					t.Calls = append(t.Calls, *p.FunctionCall)
				}
			}
			turns = append(turns, t)
			continue
		}
		if len(turns) == 0 {
			continue // the prompt
		}
		last := &turns[len(turns)-1]
		for _, p := range c.Parts {
			switch {
			case p.FunctionResponse != nil:
				last.Results = append(last.Results, *p.FunctionResponse)
			case p.Text != "" && !p.Thought:
				last.Notes = append(last.Notes, p.Text)
			}
		}
	}
	return turns
}

// Result is the response that came back for the call with id, if any.
func (t Turn) Result(id string) (FunctionResponse, bool) {
	for _, r := range t.Results {
		if r.ID == id {
			return r, true
		}
	}
	return FunctionResponse{}, false
}
