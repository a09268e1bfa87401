/** The fixed vocabulary the benchmark workload is generated from. */

export const NAMES = [
  'Alice', 'Bruno', 'Chen', 'Dana', 'Elif', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jonas',
  'Kenji', 'Lena', 'Marco', 'Nadia', 'Omar', 'Priya', 'Quentin', 'Rosa', 'Sami', 'Tara',
  'Umar', 'Vera', 'Wen', 'Ximena', 'Yusuf', 'Zoe', 'Ada', 'Boris', 'Clara', 'Diego',
] as const;

export const NOUNS = [
  'garden', 'guitar', 'bicycle', 'recipe', 'novel', 'camera', 'painting', 'puppy', 'kitten', 'laptop',
  'budget', 'contract', 'invoice', 'deadline', 'meeting', 'report', 'presentation', 'database', 'server', 'release',
  'concert', 'marathon', 'vacation', 'wedding', 'birthday', 'interview', 'promotion', 'apartment', 'kitchen', 'balcony',
  'telescope', 'sourdough', 'espresso', 'pottery', 'sculpture', 'podcast', 'newsletter', 'workshop', 'hackathon', 'museum',
  'passport', 'ticket', 'umbrella', 'backpack', 'notebook', 'sketchbook', 'violin', 'piano', 'chessboard', 'aquarium',
  'tomatoes', 'lavender', 'orchids', 'strawberries', 'dumplings', 'lasagna', 'pancakes', 'curry', 'soup', 'salad',
] as const;

export const PLACES = [
  'Lisbon', 'Kyoto', 'Berlin', 'Toronto', 'Nairobi', 'Oslo', 'Lima', 'Seoul', 'Prague', 'Dublin',
  'the library', 'the office', 'the park', 'the beach', 'the market', 'the studio', 'the cafe', 'the gym',
  'the lake', 'the mountains', 'the community center', 'the train station', 'the airport', 'the bakery',
] as const;

export const ADJECTIVES = [
  'old', 'new', 'blue', 'tiny', 'huge', 'quiet', 'noisy', 'vintage', 'broken', 'shiny',
  'favourite', 'borrowed', 'handmade', 'expensive', 'cheap', 'wooden', 'red', 'green', 'strange', 'lovely',
] as const;

export const VERBS_PAST = [
  'bought', 'fixed', 'lost', 'found', 'painted', 'sold', 'borrowed', 'cooked', 'planned', 'finished',
  'started', 'cancelled', 'rescheduled', 'reviewed', 'shipped', 'photographed', 'repaired', 'ordered', 'packed', 'shared',
] as const;

export const ACTIVITIES = [
  'hiking', 'swimming', 'baking bread', 'learning Spanish', 'playing chess', 'running', 'climbing', 'gardening',
  'writing poems', 'practising yoga', 'sailing', 'camping', 'knitting', 'birdwatching', 'volunteering', 'dancing salsa',
] as const;

export const TIMES = [
  'yesterday', 'last week', 'last month', 'this morning', 'on Friday', 'on Sunday', 'in May', 'in October',
  'two days ago', 'last summer', 'over the weekend', 'before lunch', 'after work', 'tonight', 'last year',
] as const;

export const FEELINGS = [
  'happy', 'nervous', 'excited', 'tired', 'proud', 'worried', 'relieved', 'grateful', 'annoyed', 'curious',
] as const;

/** The content words queries are drawn from: every word that occurs in generated texts and carries meaning. */
export const QUERY_WORDS: readonly string[] = [
  ...NOUNS,
  ...NAMES,
  ...ADJECTIVES,
  ...ACTIVITIES.flatMap((a) => a.split(' ')),
  ...PLACES.flatMap((p) => p.split(' ')).filter((w) => w !== 'the'),
];
