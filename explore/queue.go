package explore

import "math/big"

// The searches over the graph (leastToGo, likeliest, likeliestMiss) share
// one heap.

// distItem is a state and its distance, for a shortest-way search.
type distItem struct {
	s int
	d int64
}

// queue is a heap ordered by less, for container/heap.
type queue[T any] struct {
	items []T
	less  func(a, b T) bool
}

func (q *queue[T]) Len() int           { return len(q.items) }
func (q *queue[T]) Less(i, j int) bool { return q.less(q.items[i], q.items[j]) }
func (q *queue[T]) Swap(i, j int)      { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *queue[T]) Push(x any)         { q.items = append(q.items, x.(T)) }
func (q *queue[T]) Pop() any {
	last := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return last
}

// ratItem is a state and its probability, for a most-probable search.
type ratItem struct {
	i int
	p *big.Rat
}

// mostProbable orders a queue[ratItem] as a max-heap of p.
func mostProbable() *queue[ratItem] {
	return &queue[ratItem]{less: func(a, b ratItem) bool { return a.p.Cmp(b.p) > 0 }}
}
